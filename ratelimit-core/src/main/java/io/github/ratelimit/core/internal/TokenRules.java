package io.github.ratelimit.core.internal;

import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What every store of single-use tokens checks and makes the same way: the arguments of an issue, the form of a
 * token (192 random bits, base64url, 32 characters), and the answers given without looking a token up.
 */
public final class TokenRules {

    private static final int TOKEN_BYTES = 24;
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{32}");
    private static final int MAX_METADATA_ENTRIES = 32;
    private static final int MAX_METADATA_BYTES = 4096;
    private static final int MAX_USES = 1_000_000;

    private final SecureRandom random = nonBlockingRandom();

    /** Checks an issue's arguments; returns the metadata as names and values in turn. */
    public static List<String> checkIssue(
            String purpose, @Nullable Map<String, String> metadata, Duration ttl, int uses) {
        checkPurpose(purpose);
        if (ttl == null || ttl.toMillis() < 1) {
            throw new IllegalArgumentException(Messages.atLeast("ttl", "1 ms", ttl));
        }
        if (uses < 1 || uses > MAX_USES) {
            throw new IllegalArgumentException(Messages.between("uses", 1, MAX_USES, uses));
        }
        return flatten(metadata);
    }

    /** A new token. */
    public String newToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Whether a value has a token's form. */
    public static boolean isToken(@Nullable String token) {
        return token != null && TOKEN.matcher(token).matches();
    }

    /** A missing or malformed token, answered without looking it up; null for a token to look up. */
    public static @Nullable TokenConsumption refusedUnseen(String purpose, @Nullable String token) {
        checkPurpose(purpose);
        if (token == null || token.isBlank()) {
            return new TokenConsumption(Status.MISSING, purpose, Map.of(), 0);
        }
        if (!isToken(token)) {
            return new TokenConsumption(Status.MALFORMED, purpose, Map.of(), 0);
        }
        return null;
    }

    public static void checkPurpose(String purpose) {
        if (!Messages.isName(purpose)) {
            throw new IllegalArgumentException(Messages.badName("purpose", purpose));
        }
    }

    /**
     * A CSPRNG that, once seeded, makes its bits in memory: the DRBG reads the system's entropy only when created, so
     * issuing a token never reads a device on a non-blocking thread.
     */
    private static SecureRandom nonBlockingRandom() {
        try {
            SecureRandom drbg = SecureRandom.getInstance("DRBG");
            drbg.nextBytes(new byte[1]); // seed now, on the thread that creates the tokens
            return drbg;
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    private static List<String> flatten(@Nullable Map<String, String> metadata) {
        if (metadata == null) {
            return List.of();
        }
        if (metadata.size() > MAX_METADATA_ENTRIES) {
            throw new IllegalArgumentException(
                    "token metadata may have at most " + MAX_METADATA_ENTRIES + " entries, but has " + metadata.size());
        }
        List<String> flat = new ArrayList<>(metadata.size() * 2);
        int bytes = 0;
        for (Map.Entry<String, String> entry : metadata.entrySet()) {
            if (entry.getKey() == null || entry.getKey().isEmpty() || entry.getValue() == null) {
                throw new IllegalArgumentException("token metadata needs non-empty names and non-null values");
            }
            bytes += entry.getKey().getBytes(StandardCharsets.UTF_8).length
                    + entry.getValue().getBytes(StandardCharsets.UTF_8).length;
            flat.add(entry.getKey());
            flat.add(entry.getValue());
        }
        if (bytes > MAX_METADATA_BYTES) {
            throw new IllegalArgumentException(
                    "token metadata may have at most " + MAX_METADATA_BYTES + " bytes, but has " + bytes);
        }
        return flat;
    }
}
