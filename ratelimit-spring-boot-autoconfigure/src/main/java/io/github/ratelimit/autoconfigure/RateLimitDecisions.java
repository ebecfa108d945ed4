package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.local.LocalRateLimiter;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one decision flow of the starter, for annotations and path rules alike (and any later caller): ask the limiter
 * once, and when Redis cannot decide, decide in this instance's memory, fail open or fail closed as configured.
 * Fallbacks are counted and logged here, and would-be refusals of shadow limits recorded here, once per limit whoever
 * asked. Framework-free; the caller turns
 * the {@link Outcome} into its own answer (proceed, an exception, a response).
 */
final class RateLimitDecisions {

    private final Supplier<RateLimiter> limiter;
    private final BooleanSupplier allShadow;
    private final Supplier<FailureMode> failureMode;
    private final LocalLimits local;
    private final BooleanSupplier staggeredByDefault;
    private final Fallbacks fallbacks;
    private final Plans plans;
    private final ShadowRejections shadowRejections = new ShadowRejections();
    private final Exemptions exemptions;
    private final Supplier<ClientBlocks> blocks;
    private final Supplier<LimitOverrides> overrides;

    /**
     * @param limiter the limiter, looked up on each call
     * @param allShadow whether every limit is in shadow mode ({@code ratelimit.shadow}), asked on each call
     * @param failureMode what limits that leave it to the application do when Redis cannot decide
     *     ({@code ratelimit.failure-mode}: local, open or closed), asked on each call
     * @param staggeredByDefault whether limits that leave the retry advice to the application stagger it
     *     ({@code ratelimit.retry-advice.default=staggered}), asked on each call
     * @param fallbacks where decisions made without Redis are counted
     */
    public RateLimitDecisions(
            Supplier<RateLimiter> limiter,
            BooleanSupplier allShadow,
            Supplier<FailureMode> failureMode,
            BooleanSupplier staggeredByDefault,
            Fallbacks fallbacks) {
        this(
                limiter,
                allShadow,
                failureMode,
                staggeredByDefault,
                fallbacks,
                Plans.NONE,
                new LocalLimits(LocalRateLimiter.DEFAULT_MAX_ENTRIES, () -> 1));
    }

    /**
     * @param limiter the limiter, looked up on each call
     * @param allShadow whether every limit is in shadow mode ({@code ratelimit.shadow}), asked on each call
     * @param failureMode what limits that leave it to the application do when Redis cannot decide
     * @param staggeredByDefault whether limits that leave the retry advice to the application stagger it
     * @param fallbacks where decisions made without Redis are counted
     * @param plans the plan groups, for limits that are a caller's plan's
     * @param local the limits this instance enforces in memory while Redis cannot decide
     */
    public RateLimitDecisions(
            Supplier<RateLimiter> limiter,
            BooleanSupplier allShadow,
            Supplier<FailureMode> failureMode,
            BooleanSupplier staggeredByDefault,
            Fallbacks fallbacks,
            Plans plans,
            LocalLimits local) {
        this(
                limiter,
                allShadow,
                failureMode,
                staggeredByDefault,
                fallbacks,
                plans,
                local,
                Exemptions.NONE,
                () -> null,
                () -> null);
    }

    /**
     * @param exemptions the trusted callers no rate limit applies to
     * @param blocks the clients blocked by operators, when there is a Redis for them (null otherwise)
     * @param overrides operators' overrides of limits by name, when there is a Redis for them (null otherwise)
     */
    RateLimitDecisions(
            Supplier<RateLimiter> limiter,
            BooleanSupplier allShadow,
            Supplier<FailureMode> failureMode,
            BooleanSupplier staggeredByDefault,
            Fallbacks fallbacks,
            Plans plans,
            LocalLimits local,
            Exemptions exemptions,
            Supplier<ClientBlocks> blocks,
            Supplier<LimitOverrides> overrides) {
        this.blocks = blocks;
        this.overrides = overrides;
        this.exemptions = exemptions;
        this.plans = plans;
        this.limiter = limiter;
        this.allShadow = allShadow;
        this.failureMode = failureMode;
        this.local = local;
        this.staggeredByDefault = staggeredByDefault;
        this.fallbacks = fallbacks;
    }

    /**
     * Enforcing, deciding in memory (one instance) when Redis cannot, earliest retry advice, with fresh counters: for a
     * limiter wired by hand.
     */
    public static RateLimitDecisions of(RateLimiter limiter) {
        return new RateLimitDecisions(
                () -> limiter, () -> false, () -> FailureMode.LOCAL, () -> false, new Fallbacks());
    }

    /** Whether a limit declaring this advice staggers it, the application-wide default applied. */
    public boolean staggered(RetryAdvice advice) {
        return advice == RetryAdvice.STAGGERED || (advice == RetryAdvice.DEFAULT && staggeredByDefault.getAsBoolean());
    }

    /** Whether no rate limit applies to this caller ({@code ratelimit.exempt}): it is neither limited nor counted. */
    public boolean exempt(io.github.ratelimit.core.CallerContext caller) {
        return exemptions.exempt(caller);
    }

    /**
     * The refusal of a call whose caller an operator blocked, or null: a block of the caller's address ({@code ip}),
     * principal or a header's value ({@code header:x-api-key}) applies whatever the call's keys, a block of another
     * kind (an application's own) when one of the call's identifiers has that kind and value. Read from memory (see {@link ClientBlocks}); the refusal's advice is the time the block has left.
     */
    public Outcome blocked(io.github.ratelimit.core.CallerContext caller, List<LimitRequest> requests) {
        ClientBlocks blocked = blocks.get();
        if (blocked == null || blocked.isEmpty()) {
            return null;
        }
        List<ClientIdentifier> candidates = new java.util.ArrayList<>(requests.size() + 2);
        if (caller.clientAddress() != null) {
            candidates.add(ClientIdentifier.of("ip", caller.clientAddress()));
        }
        if (caller.principalName() != null) {
            candidates.add(ClientIdentifier.of("principal", caller.principalName()));
        }
        for (String block : blocked.list().keySet()) {
            // a header kind (an API key) blocks the header's value whatever the call's keys
            int space = block.indexOf(' ');
            if (block.startsWith("header:") && space > 7) {
                String value = caller.header(block.substring(7, space));
                if (value != null) {
                    candidates.add(ClientIdentifier.of(block.substring(0, space), value));
                }
            }
        }
        for (LimitRequest request : requests) {
            candidates.add(request.identifier());
        }
        for (ClientIdentifier candidate : candidates) {
            java.time.Duration left = blocked.blockedFor(candidate);
            if (left != null) {
                fallbacks.blocked(candidate);
                long ms = Math.max(1, left.toMillis());
                LimitRequest request = LimitRequest.of(
                        io.github.ratelimit.core.RateLimit.of(
                                "blocked", io.github.ratelimit.annotation.Algorithm.FIXED_WINDOW, 1, ms),
                        candidate,
                        1);
                return new Refused(new Decision(
                        false, List.of(new Decision.LimitOutcome(request, false, 0, left, left)), blocked.now()));
            }
        }
        return null;
    }

    /** An operator's override of the limit name in force, or null (plans' limits are never overridden). */
    public LimitOverrides.Change override(String name) {
        LimitOverrides current = overrides.get();
        return current == null ? null : current.get(name);
    }

    /** Whether every limit is in shadow mode right now. */
    public boolean allShadow() {
        return allShadow.getAsBoolean();
    }

    public Fallbacks fallbacks() {
        return fallbacks;
    }

    /** The plan groups, where a caller's plan and limits are resolved. */
    public Plans plans() {
        return plans;
    }

    /**
     * Decides one call.
     *
     * @param what the method or the rules being decided, for the fallback log
     * @param requests every limit and identifier of the call
     * @param failureModes what the call's limits do when Redis cannot decide (the strictest applies, {@code DEFAULT}
     *     being the application's mode)
     */
    public Outcome decide(String what, List<LimitRequest> requests, Set<FailureMode> failureModes) {
        return decide(what, requests, failureModes, Duration.ZERO);
    }

    /**
     * Decides one call, waiting up to {@code wait} for room when refused (see {@link RateLimiter#tryAcquire(List,
     * Duration)}). When Redis cannot decide, the call's failure mode decides at once, without waiting.
     */
    public Outcome decide(String what, List<LimitRequest> requests, Set<FailureMode> failureModes, Duration wait) {
        try {
            RateLimiter limiter = this.limiter.get();
            return decided(wait.isZero() ? limiter.tryAcquire(requests) : limiter.tryAcquire(requests, wait));
        } catch (RedisUnavailableException e) {
            return withoutRedis(what, requests, failureModes, e);
        }
    }

    /**
     * {@link #decide} without blocking the calling thread: the stage completes with the outcome (Redis being
     * unavailable is an outcome, not a failure); it fails only for errors that are not Redis being unavailable.
     */
    public CompletionStage<Outcome> decideAsync(
            String what, List<LimitRequest> requests, Set<FailureMode> failureModes) {
        return decideAsync(what, requests, failureModes, Duration.ZERO);
    }

    /** {@link #decide(String, List, Set, Duration)} without blocking the calling thread: the waits are timers. */
    public CompletionStage<Outcome> decideAsync(
            String what, List<LimitRequest> requests, Set<FailureMode> failureModes, Duration wait) {
        CompletionStage<Decision> decision;
        try {
            RateLimiter limiter = this.limiter.get();
            decision = wait.isZero() ? limiter.tryAcquireAsync(requests) : limiter.tryAcquireAsync(requests, wait);
        } catch (RuntimeException e) {
            decision = CompletableFuture.failedFuture(e);
        }
        return decision.handle((decided, error) -> {
            if (error == null) {
                return decided(decided);
            }
            Throwable cause = Futures.cause(error);
            if (cause instanceof RedisUnavailableException unavailable) {
                return withoutRedis(what, requests, failureModes, unavailable);
            }
            throw cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
        });
    }

    /**
     * Charges what calls used after they ran (see {@link RateLimiter#chargeAsync}), waiting for it within the budget so
     * that the caller's next call meets it. Never fails the call, which has run: a charge Redis could not take is
     * logged (once until a charge succeeds again) and lost.
     */
    public void charge(String what, List<MethodLimits.Charged> charges) {
        try {
            chargeAsync(what, charges).toCompletableFuture().join();
        } catch (CompletionException e) {
            // logged where it failed
        }
    }

    /** {@link #charge} without blocking: the stage completes once every charge was taken, or failed and was logged. */
    public CompletionStage<Void> chargeAsync(String what, List<MethodLimits.Charged> charges) {
        if (charges.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[charges.size()];
        for (int i = 0; i < all.length; i++) {
            MethodLimits.Charged charged = charges.get(i);
            CompletionStage<Void> charge;
            try {
                charge = limiter.get().chargeAsync(charged.requests(), charged.units());
            } catch (RuntimeException e) {
                charge = CompletableFuture.failedFuture(e);
            }
            all[i] = charge.handle((done, error) -> {
                        fallbacks.charged(what, charged.units(), error == null ? null : Futures.cause(error));
                        return null;
                    })
                    .toCompletableFuture();
        }
        return CompletableFuture.allOf(all);
    }

    /**
     * What a call that failed takes, after the fact: the requests of its limits that count failures only (decided
     * before the call without taking anything), now taking their cost. Empty when none of its limits counts failures.
     */
    public static List<LimitRequest> failures(List<LimitRequest> requests) {
        List<LimitRequest> failures = null;
        for (LimitRequest request : requests) {
            if (request.checkOnly()) {
                if (failures == null) {
                    failures = new java.util.ArrayList<>(requests.size());
                }
                failures.add(request.taking());
            }
        }
        return failures == null ? List.of() : failures;
    }

    private Outcome decided(Decision decision) {
        local.redisDecides();
        return outcomeOf(decision);
    }

    private Outcome outcomeOf(Decision decision) {
        shadowRejections.record(decision);
        return decision.allowed() ? new Admitted(decision) : new Refused(decision);
    }

    private Outcome withoutRedis(
            String what, List<LimitRequest> requests, Set<FailureMode> failureModes, RedisUnavailableException e) {
        switch (strictest(failureModes, failureMode.get())) {
            case CLOSED -> {
                fallbacks.failedClosed(what, e);
                return new RefusedClosed(e);
            }
            case LOCAL -> {
                fallbacks.countDecidedLocally();
                return outcomeOf(local.decide(what, requests, e));
            }
            default -> {
                fallbacks.failedOpen(what, e);
                return new UncheckedOpen(e);
            }
        }
    }

    /** The strictest of a call's modes (closed, then local, then open), {@code DEFAULT} being the application's. */
    static FailureMode strictest(Set<FailureMode> modes, FailureMode application) {
        boolean byDefault = modes.isEmpty() || modes.contains(FailureMode.DEFAULT);
        for (FailureMode mode : List.of(FailureMode.CLOSED, FailureMode.LOCAL)) {
            if (modes.contains(mode) || (byDefault && application == mode)) {
                return mode;
            }
        }
        return FailureMode.OPEN;
    }

    /**
     * How a call was decided. Every caller (the interceptor, the servlet filter, the web filter) turns it into its
     * answer the same way: throw or answer {@link #refusal()} when there is one, else report {@link #admitted()} (the
     * RateLimit fields) when there is one, and go on.
     */
    public sealed interface Outcome permits Admitted, Refused, UncheckedOpen, RefusedClosed {

        /** What refuses the call (answered 429 or 503), or null when it goes on; a new exception on each call. */
        default RuntimeException refusal() {
            return null;
        }

        /** The decision that admitted the call, to report in the answer, or null when none was made. */
        default Decision admitted() {
            return null;
        }
    }

    /** Every enforced limit had room; each took its cost. */
    public record Admitted(Decision decision) implements Outcome {
        @Override
        public Decision admitted() {
            return decision;
        }
    }

    /** An enforced limit had no room; nothing was taken. */
    public record Refused(Decision decision) implements Outcome {
        @Override
        public RuntimeException refusal() {
            return new RateLimitExceededException(decision);
        }
    }

    /** Redis could not decide and the call's limits fail open: it goes through unchecked. */
    public record UncheckedOpen(RedisUnavailableException cause) implements Outcome {}

    /** Redis could not decide and a limit of the call fails closed: it is refused (503). */
    public record RefusedClosed(RedisUnavailableException cause) implements Outcome {
        @Override
        public RuntimeException refusal() {
            return cause;
        }
    }
}
