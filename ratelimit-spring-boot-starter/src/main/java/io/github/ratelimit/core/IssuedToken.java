package io.github.ratelimit.core;

import java.time.Duration;
import java.time.Instant;

/**
 * A newly issued single-use token. Only the application ever holds the token itself; Redis keeps a SHA-256
 * of it. {@link #toString()} does not show the token.
 *
 * @param token the secret to hand to the client: 192 random bits, base64url (32 characters)
 * @param purpose what it is for
 * @param uses how many times it can be consumed
 * @param ttl how long it lives
 * @param expiresAt when it stops working, by the Redis server's clock
 */
public record IssuedToken(String token, String purpose, int uses, Duration ttl, Instant expiresAt) {

    @Override
    public String toString() {
        return "IssuedToken[purpose=" + purpose + ", uses=" + uses + ", ttl=" + ttl + ", expiresAt=" + expiresAt + "]";
    }
}
