package io.github.ratelimit.redis.tokens;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.TokenRules;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption.Status;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.internal.AttemptIds;
import io.github.ratelimit.redis.internal.GiveBacks;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.redis.internal.RedisKeys;
import io.github.ratelimit.redis.internal.Replicas;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * Single-use tokens in Redis: 192 random bits from a CSPRNG, base64url; Redis stores only a SHA-256 of the
 * token, in a hash created with its expiry in one script; consumption is one atomic script.
 */
public final class RedisSingleUseTokens implements SingleUseTokens, RateLimitEvents.Source {

    private final RateLimitEvents events = new RateLimitEvents();

    static final LuaScript ISSUE =
            LuaScript.load(RedisSingleUseTokens.class, "token_issue").keptLoaded();
    static final LuaScript CONSUME =
            LuaScript.load(RedisSingleUseTokens.class, "token_consume").keptLoaded();
    static final LuaScript RELEASE =
            LuaScript.load(RedisSingleUseTokens.class, "token_release").keptLoaded();
    static final LuaScript GIVE_BACK = LuaScript.load(RedisSingleUseTokens.class, "token_giveback");
    private static final Object[] NO_ARGS = new Object[0];

    private final TokenRules rules = new TokenRules();
    private final AttemptIds attempts = new AttemptIds();
    private final ScriptExecutor executor;
    private final RedisKeys keys;

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     */
    public RedisSingleUseTokens(RedissonClient redisson, String keyPrefix, RedisGuard guard) {
        this(redisson, keyPrefix, guard, defaultReplicaWait(guard));
    }

    /**
     * @param redisson the client to use; not closed by this class
     * @param keyPrefix prefix of every key, at most 64 letters, digits or {@code ._:/-}
     * @param guard the latency budget and circuit breaker, shared by everything that uses this Redis
     * @param replicaWait how long a consumption waits for a replica to acknowledge it before it is reported (zero:
     *     never waits); shorter than the guard's budget. A use no replica acknowledged in time is given back and the
     *     consumption fails with {@link io.github.ratelimit.core.RedisUnavailableException}: a failover could make the
     *     token work again. Costs nothing while no master has a replica connected.
     */
    public RedisSingleUseTokens(RedissonClient redisson, String keyPrefix, RedisGuard guard, Duration replicaWait) {
        Replicas.checkWait(replicaWait, guard, "ratelimit.durability.tokens");
        this.executor = new ScriptExecutor(redisson, guard, replicaWait);
        this.keys = new RedisKeys(keyPrefix);
    }

    /**
     * Half the budget (whole milliseconds, at least 1 ms; zero for a budget under 2 ms, too short to share): the default
     * wait for a replica's acknowledgement.
     */
    public static Duration defaultReplicaWait(RedisGuard guard) {
        return defaultReplicaWait(guard.budget());
    }

    /** The default wait for a replica's acknowledgement within a budget: half of it (see above). */
    public static Duration defaultReplicaWait(Duration budget) {
        return Duration.ofMillis(budget.toMillis() / 2);
    }

    /** Where listeners of this implementation's events are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    @Override
    public IssuedToken issue(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        return RateLimitEvents.observe(events.issuingToken(purpose), () -> issueNow(purpose, metadata, ttl, uses));
    }

    private IssuedToken issueNow(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        Issue issue = new Issue(purpose, metadata, ttl, uses);
        while (true) {
            String token = issue.newToken();
            IssuedToken issued = issue.issued(token, run(ISSUE, keys.tokenKey(purpose, token), issue.args));
            if (issued != null) {
                return issued;
            }
        }
    }

    @Override
    public CompletableFuture<IssuedToken> issueAsync(
            String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        return RateLimitEvents.observeAsync(
                events.issuingToken(purpose), () -> issueNowAsync(purpose, metadata, ttl, uses));
    }

    private CompletableFuture<IssuedToken> issueNowAsync(
            String purpose, Map<String, String> metadata, Duration ttl, int uses) {
        try {
            return issueAsync(new Issue(purpose, metadata, ttl, uses));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<IssuedToken> issueAsync(Issue issue) {
        String token = issue.newToken();
        return executor.callAsync(ISSUE, List.of(keys.tokenKey(issue.purpose, token)), issue.args)
                .thenCompose(reply -> {
                    IssuedToken issued = issue.issued(token, reply);
                    return issued != null ? CompletableFuture.completedFuture(issued) : issueAsync(issue);
                });
    }

    /** One issue: checked arguments, and fresh tokens until one is new (a collision of 192 random bits). */
    private final class Issue {

        final String purpose;
        final Duration ttl;
        final int uses;
        final Object[] args;

        Issue(String purpose, Map<String, String> metadata, Duration ttl, int uses) {
            List<String> flat = TokenRules.checkIssue(purpose, metadata, ttl, uses);
            List<Object> arguments = new ArrayList<>();
            arguments.add(Long.toString(ttl.toMillis()));
            arguments.add(Integer.toString(uses));
            arguments.addAll(flat);
            this.purpose = purpose;
            this.ttl = ttl;
            this.uses = uses;
            this.args = arguments.toArray();
        }

        String newToken() {
            return rules.newToken();
        }

        /** The issued token, or null when the token existed already. */
        @Nullable
        IssuedToken issued(String token, List<Object> reply) {
            if (ScriptExecutor.number(reply.get(0)) != 1) {
                return null;
            }
            Instant expiresAt =
                    Instant.ofEpochMilli(ScriptExecutor.number(reply.get(1))).plus(ttl);
            return new IssuedToken(token, purpose, uses, ttl, expiresAt);
        }
    }

    @Override
    public TokenConsumption consume(String purpose, @Nullable String token) {
        return RateLimitEvents.observe(events.consumingToken(purpose), () -> consumeNow(purpose, token));
    }

    private TokenConsumption consumeNow(String purpose, @Nullable String token) {
        TokenConsumption refused = TokenRules.refusedUnseen(purpose, token);
        if (refused != null) {
            return refused;
        }
        List<Object> key = List.of(keys.tokenKey(purpose, java.util.Objects.requireNonNull(token)));
        String attempt = attempts.next();
        ScriptExecutor.Acknowledged answer;
        try {
            answer = executor.callAcknowledged(CONSUME, key, new Object[] {attempt});
        } catch (RedisUnavailableException e) {
            giveBack(key, attempt); // the use may have been taken, its answer lost
            throw e;
        }
        return acknowledged(purpose, key, attempt, answer);
    }

    @Override
    public CompletableFuture<TokenConsumption> consumeAsync(String purpose, @Nullable String token) {
        return RateLimitEvents.observeAsync(events.consumingToken(purpose), () -> consumeNowAsync(purpose, token));
    }

    private CompletableFuture<TokenConsumption> consumeNowAsync(String purpose, @Nullable String token) {
        TokenConsumption refused;
        try {
            refused = TokenRules.refusedUnseen(purpose, token);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (refused != null) {
            return CompletableFuture.completedFuture(refused);
        }
        List<Object> key = List.of(keys.tokenKey(purpose, java.util.Objects.requireNonNull(token)));
        String attempt = attempts.next();
        return executor.callAcknowledgedAsync(CONSUME, key, new Object[] {attempt})
                .whenComplete((answer, error) -> {
                    if (Futures.cause(error) instanceof RedisUnavailableException) {
                        giveBack(key, attempt); // the use may have been taken, its answer lost
                    }
                })
                .thenApply(answer -> acknowledged(purpose, key, attempt, answer));
    }

    /**
     * Gives back the use one attempt took, if it took one, retried while Redis does not answer (see {@link GiveBacks});
     * an attempt that has not run yet is cancelled, so that it takes nothing when it does.
     */
    private void giveBack(List<Object> key, String attempt) {
        GiveBacks.send(
                events,
                "token",
                () -> executor.callAsync(GIVE_BACK, key, new Object[] {attempt}),
                reply -> ScriptExecutor.number(reply.get(0)) == 1);
    }

    /**
     * The consumption, once a replica has it: a use no replica acknowledged in time is given back (a failover before the
     * replica got it could make the token work a second time) and reported as Redis being unavailable.
     */
    private TokenConsumption acknowledged(
            String purpose, List<Object> key, String attempt, ScriptExecutor.Acknowledged answer) {
        TokenConsumption consumption = consumption(purpose, answer.reply());
        if (consumption.status() == Status.CONSUMED && !answer.byReplica()) {
            giveBack(key, attempt);
            throw Replicas.notAcknowledged("a use of a '" + purpose + "' token", "given back");
        }
        return consumption;
    }

    private static TokenConsumption consumption(String purpose, List<Object> reply) {
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
    public boolean release(String purpose, @Nullable String token) {
        return RateLimitEvents.observe(events.releasingToken(purpose), () -> releaseNow(purpose, token));
    }

    private boolean releaseNow(String purpose, @Nullable String token) {
        TokenRules.checkPurpose(purpose);
        if (token == null || !TokenRules.isToken(token)) {
            return false;
        }
        return ScriptExecutor.number(
                        run(RELEASE, keys.tokenKey(purpose, token), NO_ARGS).get(0))
                == 1;
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync(String purpose, @Nullable String token) {
        return RateLimitEvents.observeAsync(events.releasingToken(purpose), () -> releaseNowAsync(purpose, token));
    }

    private CompletableFuture<Boolean> releaseNowAsync(String purpose, @Nullable String token) {
        try {
            TokenRules.checkPurpose(purpose);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (token == null || !TokenRules.isToken(token)) {
            return CompletableFuture.completedFuture(false);
        }
        return executor.callAsync(RELEASE, List.of(keys.tokenKey(purpose, token)), NO_ARGS)
                .thenApply(reply -> ScriptExecutor.number(reply.get(0)) == 1);
    }

    private List<Object> run(LuaScript script, String key, Object[] args) {
        return executor.call(script, List.of(key), args);
    }
}
