package io.github.ratelimit.core;

import java.util.Map;

/**
 * The outcome of presenting a single-use token. Declare a parameter of this type on a {@code @SingleUse}
 * method to receive the metadata of the token it consumed.
 *
 * @param status what happened
 * @param purpose the purpose the token was presented for
 * @param metadata the metadata given at issue time; empty unless consumed
 * @param remainingUses how many uses the token has left after this one; 0 unless consumed
 */
public record TokenConsumption(Status status, String purpose, Map<String, String> metadata, int remainingUses) {

    /** What happened to a presented token. */
    public enum Status {
        /** The token was valid and one of its uses was taken. */
        CONSUMED,
        /** No token was presented. */
        MISSING,
        /** The value cannot be a token of ours (wrong length or characters); Redis was not asked. */
        MALFORMED,
        /** No such token for this purpose: never issued, or expired. */
        UNKNOWN,
        /** The token exists but all its uses are taken. */
        ALREADY_USED
    }

    public TokenConsumption {
        metadata = Map.copyOf(metadata);
    }

    /** Whether a use was taken. */
    public boolean consumed() {
        return status == Status.CONSUMED;
    }

    /** This consumption, or a {@link SingleUseTokenException} with the reason it was refused. */
    public TokenConsumption orElseThrow() {
        if (!consumed()) {
            throw new SingleUseTokenException(status, purpose);
        }
        return this;
    }
}
