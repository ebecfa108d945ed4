package io.github.ratelimit.redis.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.internal.Messages;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.redisson.connection.CRC16;

/**
 * Key layout of rate limits: {@code <prefix>v5:{<tag>}:<name>:<sw|fw>/<window ms>} for a window, whose counts do not
 * depend on its quota ({@code <sw|fw>p/<window ms>} for a plan's), {@code <prefix>v5:{<tag>}:<name>:tb<limit>/<window ms>}
 * for a token bucket, {@code <prefix>v5:{<tag>}:<name>:cal[p]/<day|week|month>/<zone>} for a calendar quota, where
 * the tag is the first 128 bits of the SHA-256 of the identifier, base64url, and {@code v5} the layout version (tokens
 * and locks: {@code v2}). A release that changes what a key holds changes the version, so that no release reads
 * state in another's format, and reads the layout of the release before (carrying counts, tokens and locks over), or
 * names the step an operator must take in the CHANGELOG: docs/upgrading.md. User input reaches a key only through that hash, so no
 * identifier (braces, newlines, 8 KB strings) can change the layout or choose the Cluster slot; all keys of
 * one identifier share one hash tag and so one slot.
 */
public final class RedisKeys {

    /** The version of what token and lock keys hold (the token hash, the lock strings). */
    public static final String LAYOUT = "v2:";

    /**
     * The version of what rate limit keys hold (v5: a token bucket's time exact to a capacity-th of a microsecond,
     * {@code b:n}, and a sliding window's header with the time its expiry is renewed, in 24 bytes still; v4: a window's key without its quota, so that an operator's override of the quota keeps the counts;
     * v3: the sliding window's 24-byte header, which records its capacity so that a quota
     * can change; v2 had 20 bytes without it).
     */
    public static final String LIMITS_LAYOUT = "v5:";

    /** Limits whose key parts are kept made, at most (declared limits are few; plans' limits share their parts). */
    public static final int MAX_CACHED_LIMITS = 10_000;

    private final String prefix;

    /** What every rate limit key starts with, up to the tag. */
    private final String limitsStart;

    /** The parts of a limit's keys that do not depend on the identifier, made once per limit, not per decision. */
    private final Cache<RateLimit, LimitParts> limitParts = Caffeine.newBuilder()
            .maximumSize(MAX_CACHED_LIMITS)
            // its upkeep on the calling thread: by default Caffeine hands it to the common pool every few
            // reads, a thread woken (and a core taken) on the decision path for a few nanoseconds of work
            .executor(Runnable::run)
            .build();

    /** A limit's key after the tag, and its limit and window as a key of several windows names them. */
    private record LimitParts(String suffix, String window) {

        static LimitParts of(RateLimit limit) {
            String counted = limit.period() == null
                    ? code(limit) + quotaPart(limit) + '/' + limit.windowMs()
                    : "cal" + quotaPart(limit) + '/'
                            + limit.period().unit().name().toLowerCase(java.util.Locale.ROOT) + '/'
                            + limit.period().zone().getId();
            return new LimitParts(
                    "}:" + limit.name() + ':' + counted, Long.toString(limit.limit()) + 'x' + limit.windowMs());
        }
    }

    public RedisKeys(String prefix) {
        if (prefix == null || !Messages.KEY_PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException(Messages.badKeyPrefix("ratelimit.key-prefix", prefix));
        }
        this.prefix = prefix;
        this.limitsStart = prefix + LIMITS_LAYOUT + '{';
    }

    public String prefix() {
        return prefix;
    }

    /** The Redis Cluster slot of a hash tag: CRC16 (XMODEM) of the tag, modulo 16384, by Redisson's own CRC16. */
    public static int slot(String tag) {
        return CRC16.crc16(tag.getBytes(StandardCharsets.UTF_8)) % 16384;
    }

    /** The hash tag of an identifier, without braces. */
    public static String tag(ClientIdentifier identifier) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(identifier.digest(), 16));
    }

    /** The hash tag of a lock's or a concurrency limit's key (a string the caller names), without braces. */
    public static String tag(String key) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(sha256(key), 16));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    /**
     * A token's key: {@code <prefix>{<SHA-256 of the token, base64url>}:tok:<purpose>}. The token itself is
     * never part of anything sent to Redis.
     */
    public String tokenKey(String purpose, String token) {
        return prefix + LAYOUT + '{'
                + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(token)) + "}:tok:"
                + purpose;
    }

    /** A lock's key: {@code <prefix>{<tag of the lock key>}:lock}. */
    public String lockKey(String tag) {
        return prefix + LAYOUT + '{' + tag + "}:lock";
    }

    /**
     * The holders of an adaptive concurrency limit for one identifier: {@code <prefix>{<tag>}:adapt:<name>}, a sorted
     * set; its windows, state and instances are {@code :windows}, {@code :state} and {@code :instances} after it.
     */
    public String adaptiveKey(String name, String tag) {
        return prefix + LAYOUT + '{' + tag + "}:adapt:" + name;
    }

    /** The holders of a concurrency limit for one identifier: {@code <prefix>{<tag>}:conc:<name>}, a sorted set. */
    public String concurrencyKey(String name, String tag) {
        return prefix + LAYOUT + '{' + tag + "}:conc:" + name;
    }

    /**
     * What operators see of a held lock, in its slot: {@code <lock key>:info}, a hash (owner, fencing token, since,
     * name, key, holder) that lives exactly as long as the lock.
     */
    public static String descriptionKey(String lockKey) {
        return lockKey + ":info";
    }

    /** A pattern that matches every lock's description under this prefix, for a scan. */
    public String descriptionPattern() {
        return prefix + LAYOUT + "{*}:lock:info";
    }

    /** Up to {@code max} keys matching a pattern, scanned on every master a hundred keys a step (never a blocking KEYS). */
    public static List<String> scan(org.redisson.api.RedissonClient redisson, String pattern, int max) {
        List<String> found = new java.util.ArrayList<>();
        for (String key : redisson.getKeys()
                .getKeys(org.redisson.api.options.KeysScanOptions.defaults()
                        .pattern(pattern)
                        .chunkSize(100)
                        .limit(max))) {
            found.add(key);
        }
        return found;
    }

    /** The lock key of a description key. */
    public static String lockKeyOfDescription(String descriptionKey) {
        return descriptionKey.substring(0, descriptionKey.length() - ":info".length());
    }

    /** The pub/sub channel on which operators' releases are announced to the holders, by owner. */
    public String lockRevokedChannel() {
        return prefix + "lock-revoked";
    }

    /**
     * The attempts at a key (a lock, a concurrency limit's holders) given back before they ran, in the same slot:
     * {@code <key>:given-back}, a set that expires.
     */
    public static String givenBackKey(String key) {
        return key + ":given-back";
    }

    /** The fencing counter of a lock, in the same slot: {@code <prefix>{<tag>}:fence}. */
    public String fenceKey(String tag) {
        return prefix + LAYOUT + '{' + tag + "}:fence";
    }

    /** The pub/sub channel on which rate limit resets are announced, so that every instance drops local refusals. */
    public String resetChannel() {
        return prefix + "reset";
    }

    /** The pub/sub channel on which releases are announced. */
    public String lockReleasedChannel() {
        return prefix + "lock-released";
    }

    /**
     * The staggered-advice cursor of a rate limit key, in the same slot: {@code <limit key>:adv}, one number (the last
     * advice handed out), expiring when that advice is reached.
     */
    public static String adviceCursor(String rateLimitKey) {
        return rateLimitKey + ":adv";
    }

    /**
     * The penalty box of a rate limit key, in the same slot: {@code <limit key>:pen}, present (and expiring) while the
     * identifier is in it.
     */
    public static String penaltyKey(String rateLimitKey) {
        return rateLimitKey + PENALTY_SUFFIX;
    }

    public static final String PENALTY_SUFFIX = ":pen";

    /** Every penalty box, as a pattern. */
    public String penaltyPattern() {
        return prefix + LIMITS_LAYOUT + "{*}:*" + PENALTY_SUFFIX;
    }

    /**
     * A penalty box as operators see it, read from its key: the limit's key after the tag, and the tag; null for a key
     * that is not one.
     */
    public static RateLimiter.@Nullable Penalty penaltyOf(String penaltyKey, Duration left) {
        int tag = penaltyKey.indexOf('{');
        int end = penaltyKey.indexOf('}', tag + 1);
        if (tag < 0
                || end < 0
                || !penaltyKey.endsWith(PENALTY_SUFFIX)
                || end + 2 > penaltyKey.length() - PENALTY_SUFFIX.length()) {
            return null;
        }
        return new RateLimiter.Penalty(
                penaltyKey.substring(end + 2, penaltyKey.length() - PENALTY_SUFFIX.length()),
                penaltyKey.substring(tag + 1, end),
                left);
    }

    /** The marker of one charge's attempt in the slot of {@code rateLimitKey} (same hash tag). */
    public static String chargeMarker(String rateLimitKey, String attempt) {
        return rateLimitKey.substring(0, rateLimitKey.indexOf('}') + 1) + ":ch:" + attempt;
    }

    /** The marker of one call's give-back in the slot of {@code rateLimitKey} (same hash tag). */
    public static String giveBackMarker(String rateLimitKey, String callId) {
        return rateLimitKey.substring(0, rateLimitKey.indexOf('}') + 1) + ":gb:" + callId;
    }

    /**
     * The key of several sliding windows of one limit name and identifier, counted in one ring (see ring.lua): named
     * after every limit and window, in the order given (by window).
     */
    public String severalWindowsKey(String name, String tag, List<RateLimit> limits) {
        StringBuilder key = new StringBuilder(
                        limitsStart.length() + tag.length() + name.length() + 8 + limits.size() * 16)
                .append(limitsStart)
                .append(tag)
                .append("}:")
                .append(name)
                .append(":swm/");
        for (int i = 0; i < limits.size(); i++) {
            key.append(i == 0 ? "" : ",").append(parts(limits.get(i)).window());
        }
        return key.toString();
    }

    /** Every key of several windows of one limit name and identifier, as a pattern (names have no glob characters). */
    public String severalWindowsPattern(String name, String tag) {
        return prefix + LIMITS_LAYOUT + '{' + tag + "}:" + name + ":swm/*";
    }

    public String rateLimitKey(RateLimit limit, String tag) {
        return limitsStart + tag + parts(limit).suffix();
    }

    private LimitParts parts(RateLimit limit) {
        return limitParts.get(limit, LimitParts::of);
    }

    /**
     * What of the quota the key holds: nothing for a window (its counts do not depend on the quota, so a quota that
     * changes — a plan's, an operator's override — keeps what was counted), {@code p} for a plan's window, the quota
     * for a token bucket (whose state is a time that means something only at one rate).
     */
    private static String quotaPart(RateLimit limit) {
        if (limit.algorithm() == Algorithm.TOKEN_BUCKET) {
            return Long.toString(limit.limit());
        }
        return limit.plan() != null ? "p" : "";
    }

    private static String code(RateLimit limit) {
        return switch (limit.algorithm()) {
            case SLIDING_WINDOW -> "sw";
            case FIXED_WINDOW -> "fw";
            case TOKEN_BUCKET -> "tb";
        };
    }
}
