package io.github.ratelimit.redis;

import io.github.ratelimit.core.IssuedToken;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.core.TokenConsumption;
import io.github.ratelimit.core.TokenConsumption.Status;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.redisson.api.RedissonClient;

/**
 * Single-use tokens in Redis: 192 random bits from a CSPRNG, base64url; Redis stores only a SHA-256 of the
 * token, in a hash created with its expiry in one script; consumption is one atomic script.
 */
public final class RedisSingleUseTokens implements SingleUseTokens {

    static final int TOKEN_BYTES = 24;
    static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_-]{32}");
    static final int MAX_METADATA_ENTRIES = 32;
    static final int MAX_METADATA_BYTES = 4096;
    static final int MAX_USES = 1_000_000;

    static final LuaScript ISSUE = LuaScript.load("token_issue");
    static final LuaScript CONSUME = LuaScript.load("token_consume");
    static final LuaScript RELEASE = LuaScript.load("token_release");

    private final SecureRandom random = new SecureRandom();
    private final ScriptExecutor executor;
    private final RedisKeys keys;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisSingleUseTokens(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this.executor = new ScriptExecutor(redisson, guard);
        this.keys = new RedisKeys(keyPrefix);
    }

    @Override
    public IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        checkPurpose(purpose);
        if (ttl == null || ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms, but was " + ttl);
        }
        if (uses < 1 || uses > MAX_USES) {
            throw new IllegalArgumentException("uses must be between 1 and " + MAX_USES + ", but was " + uses);
        }
        List<Object> args = new ArrayList<>();
        args.add(Long.toString(ttl.toMillis()));
        args.add(Integer.toString(uses));
        args.addAll(flatten(metadata));
        while (true) {
            byte[] bytes = new byte[TOKEN_BYTES];
            random.nextBytes(bytes);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            List<Object> reply = run(ISSUE, keys.tokenKey(purpose, token), args.toArray());
            if (ScriptExecutor.number(reply.get(0)) == 1) {
                Instant expiresAt = Instant.ofEpochMilli(ScriptExecutor.number(reply.get(1)))
                        .plus(ttl);
                return new IssuedToken(token, purpose, uses, ttl, expiresAt);
            }
        }
    }

    @Override
    public TokenConsumption consume(String purpose, String token) {
        checkPurpose(purpose);
        if (token == null || token.isBlank()) {
            return new TokenConsumption(Status.MISSING, purpose, Map.of(), 0);
        }
        if (!TOKEN.matcher(token).matches()) {
            return new TokenConsumption(Status.MALFORMED, purpose, Map.of(), 0);
        }
        List<Object> reply = run(CONSUME, keys.tokenKey(purpose, token), new Object[0]);
        long outcome = ScriptExecutor.number(reply.get(0));
        if (outcome == 0) {
            return new TokenConsumption(Status.UNKNOWN, purpose, Map.of(), 0);
        }
        if (outcome < 0) {
            return new TokenConsumption(Status.ALREADY_USED, purpose, Map.of(), 0);
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        for (int i = 2; i + 1 < reply.size(); i += 2) {
            metadata.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
        }
        return new TokenConsumption(Status.CONSUMED, purpose, metadata, (int) ScriptExecutor.number(reply.get(1)));
    }

    @Override
    public boolean release(String purpose, String token) {
        checkPurpose(purpose);
        if (token == null || !TOKEN.matcher(token).matches()) {
            return false;
        }
        return ScriptExecutor.number(run(RELEASE, keys.tokenKey(purpose, token), new Object[0])
                        .get(0))
                == 1;
    }

    private List<Object> run(LuaScript script, String key, Object[] args) {
        return executor.call(script, List.of(key), args);
    }

    private static void checkPurpose(String purpose) {
        if (purpose == null || !RateLimit.NAME.matcher(purpose).matches()) {
            throw new IllegalArgumentException(
                    "purpose must be 1 to 100 letters, digits or '._:/-', but was '" + purpose + "'");
        }
    }

    private static List<String> flatten(Map<String, String> metadata) {
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
