package io.github.ratelimit.local;

import io.github.ratelimit.core.internal.TokenRules;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Single-use tokens in this instance's memory ({@code ratelimit.store=memory}): the tokens and answers of the Redis
 * store, each use taken atomically, for one instance, local development and tests. A used token stays known as used
 * until it expires; expired tokens are dropped on use, and all of them every 1,024 issues.
 */
public final class LocalSingleUseTokens implements SingleUseTokens {

    private final TokenRules rules = new TokenRules();
    private final Map<String, Entry> tokens = new ConcurrentHashMap<>();
    private final AtomicLong issued = new AtomicLong();

    private record Entry(Map<String, String> metadata, int uses, int used, long expiresAtNanos) {

        boolean expired(long now) {
            return now - expiresAtNanos >= 0;
        }
    }

    @Override
    public IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        List<String> flat = TokenRules.checkIssue(purpose, metadata, ttl, uses);
        Map<String, String> kept = new LinkedHashMap<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            kept.put(flat.get(i), flat.get(i + 1));
        }
        long now = System.nanoTime();
        if (issued.incrementAndGet() % 1024 == 0) {
            tokens.values().removeIf(entry -> entry.expired(now)); // now and then, not a scan per token
        }
        Entry entry = new Entry(Map.copyOf(kept), uses, 0, now + ttl.toNanos());
        String token;
        do {
            token = rules.newToken();
        } while (tokens.putIfAbsent(key(purpose, token), entry) != null);
        return new IssuedToken(token, purpose, uses, ttl, Instant.now().plus(ttl));
    }

    @Override
    public TokenConsumption consume(String purpose, @Nullable String token) {
        TokenConsumption refused = TokenRules.refusedUnseen(purpose, token);
        if (refused != null) {
            return refused;
        }
        long now = System.nanoTime();
        TokenConsumption[] answer = new TokenConsumption[1];
        tokens.compute(key(purpose, token), (key, entry) -> {
            if (entry == null || entry.expired(now)) {
                answer[0] = new TokenConsumption(Status.UNKNOWN, purpose, Map.of(), 0);
                return null;
            }
            if (entry.used() >= entry.uses()) {
                answer[0] = new TokenConsumption(Status.ALREADY_USED, purpose, Map.of(), 0);
                return entry;
            }
            int used = entry.used() + 1;
            answer[0] = new TokenConsumption(Status.CONSUMED, purpose, entry.metadata(), entry.uses() - used);
            return new Entry(entry.metadata(), entry.uses(), used, entry.expiresAtNanos());
        });
        return answer[0];
    }

    @Override
    public boolean release(String purpose, @Nullable String token) {
        TokenRules.checkPurpose(purpose);
        if (!TokenRules.isToken(token)) {
            return false;
        }
        long now = System.nanoTime();
        boolean[] released = new boolean[1];
        tokens.computeIfPresent(key(purpose, token), (key, entry) -> {
            if (entry.expired(now)) {
                return null;
            }
            if (entry.used() == 0) {
                return entry;
            }
            released[0] = true;
            return new Entry(entry.metadata(), entry.uses(), entry.used() - 1, entry.expiresAtNanos());
        });
        return released[0];
    }

    private static String key(String purpose, @Nullable String token) {
        return purpose + '\u0000' + token;
    }
}
