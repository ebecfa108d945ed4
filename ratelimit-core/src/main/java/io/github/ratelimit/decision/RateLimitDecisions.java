package io.github.ratelimit.decision;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.local.LocalRateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one decision flow, for every integration: annotations, both web filters, outbound clients, and code of your own.
 * {@link #decide(CallerContext, Function)} takes the caller and what its call asks, and goes through the whole flow:
 * a trusted caller is exempt (nothing asked, nothing counted); a blocked caller is refused with the time the block has
 * left; otherwise the limiter decides once, waiting for room as the call allows, and when Redis cannot decide, the
 * call's failure mode decides (in this instance's memory, open or closed). Shadow limits report without refusing.
 * Decisions made without Redis, charges and blocked calls are told to the listeners ({@link #events()}), the first of
 * which counts and logs them ({@link Fallbacks}). An integration drives one call through {@link #begin}: the
 * {@link DecidedCall} it gives answers the refusal, reports the admission and, once the call ran, counts its failure
 * and charges what it used. {@link #decide} is the decision alone, for callers with nothing to finish.
 *
 * <p>Framework-free: made with {@link #builder(Supplier)}, or {@link #of(RateLimiter)} for a limiter alone.
 */
public final class RateLimitDecisions implements RateLimitEvents.Source {

    private final RateLimitEvents events = new RateLimitEvents();

    private final Supplier<RateLimiter> limiter;
    private final BooleanSupplier allShadow;
    private final Supplier<FailureMode> failureMode;
    private final LocalLimits local;
    private final BooleanSupplier staggeredByDefault;
    private final Fallbacks fallbacks;
    private final ShadowRejections shadowRejections = new ShadowRejections();
    private final Exemptions exemptions;
    private final Supplier<ClientBlocks> blocks;
    private final Supplier<LimitOverrides> overrides;

    private RateLimitDecisions(Builder builder) {
        this.limiter = builder.limiter;
        this.allShadow = builder.allShadow;
        this.failureMode = builder.failureMode;
        this.local = new LocalLimits(builder.localMaxEntries, builder.instances);
        this.staggeredByDefault = builder.staggeredByDefault;
        this.fallbacks = builder.fallbacks;
        this.events.add(fallbacks);
        this.exemptions = builder.exemptions;
        this.blocks = builder.blocks;
        this.overrides = builder.overrides;
    }

    /**
     * A flow over this limiter: enforcing, deciding in this instance's memory (as the only instance) when Redis cannot,
     * earliest retry advice, nobody exempt or blocked.
     */
    public static RateLimitDecisions of(RateLimiter limiter) {
        Objects.requireNonNull(limiter, "limiter");
        return builder(() -> limiter).build();
    }

    /** A flow over the limiter the supplier gives, asked on each call; the builder's defaults are those of {@link #of}. */
    public static Builder builder(Supplier<RateLimiter> limiter) {
        return new Builder(Objects.requireNonNull(limiter, "limiter"));
    }

    /** What a flow is made of; each setting has the default that {@link #of(RateLimiter)} uses. */
    public static final class Builder {

        private final Supplier<RateLimiter> limiter;
        private BooleanSupplier allShadow = () -> false;
        private Supplier<FailureMode> failureMode = () -> FailureMode.LOCAL;
        private BooleanSupplier staggeredByDefault = () -> false;
        private Fallbacks fallbacks = new Fallbacks();
        private long localMaxEntries = LocalRateLimiter.DEFAULT_MAX_ENTRIES;
        private IntSupplier instances = () -> 1;
        private Exemptions exemptions = Exemptions.NONE;
        private Supplier<ClientBlocks> blocks = () -> null;
        private Supplier<LimitOverrides> overrides = () -> null;

        private Builder(Supplier<RateLimiter> limiter) {
            this.limiter = limiter;
        }

        /** Whether every limit is in shadow mode ({@code ratelimit.shadow}), asked on each call. */
        public Builder allShadow(BooleanSupplier allShadow) {
            this.allShadow = Objects.requireNonNull(allShadow, "allShadow");
            return this;
        }

        /**
         * What limits that leave it to the application do when Redis cannot decide ({@code ratelimit.failure-mode}:
         * local, open or closed), asked on each call.
         */
        public Builder failureMode(Supplier<FailureMode> failureMode) {
            this.failureMode = Objects.requireNonNull(failureMode, "failureMode");
            return this;
        }

        /** Whether limits that leave the retry advice to the application stagger it, asked on each call. */
        public Builder staggeredByDefault(BooleanSupplier staggeredByDefault) {
            this.staggeredByDefault = Objects.requireNonNull(staggeredByDefault, "staggeredByDefault");
            return this;
        }

        /** Where decisions made without Redis, charges and blocked calls are counted (a new one by default). */
        public Builder fallbacks(Fallbacks fallbacks) {
            this.fallbacks = Objects.requireNonNull(fallbacks, "fallbacks");
            return this;
        }

        /**
         * The limits this instance enforces in memory while Redis cannot decide: each limit divided by {@code
         * instances} (asked on each such call, at least 1), at most {@code maxEntries} limit-and-identifier pairs.
         */
        public Builder localLimits(long maxEntries, IntSupplier instances) {
            this.localMaxEntries = maxEntries;
            this.instances = Objects.requireNonNull(instances, "instances");
            return this;
        }

        /** The trusted callers no rate limit applies to. */
        public Builder exemptions(Exemptions exemptions) {
            this.exemptions = Objects.requireNonNull(exemptions, "exemptions");
            return this;
        }

        /** The clients blocked by operators; the supplier may give null (no blocks). Asked on each call. */
        public Builder blocks(Supplier<ClientBlocks> blocks) {
            this.blocks = Objects.requireNonNull(blocks, "blocks");
            return this;
        }

        /** Operators' overrides of limits by name; the supplier may give null (none). Asked on each call. */
        public Builder overrides(Supplier<LimitOverrides> overrides) {
            this.overrides = Objects.requireNonNull(overrides, "overrides");
            return this;
        }

        public RateLimitDecisions build() {
            return new RateLimitDecisions(this);
        }
    }

    /**
     * What one call asks: every limit and identifier, what the call's limits do when Redis cannot decide (the
     * strictest applies, {@code DEFAULT} being the application's mode), and how long it may wait for room ({@code
     * maxWait}, zero to be refused at once).
     *
     * @param what the method or the rules being decided, for the fallback log
     */
    public record Call(String what, List<LimitRequest> requests, Set<FailureMode> failureModes, Duration maxWait) {

        public Call {
            Objects.requireNonNull(what, "what");
            requests = List.copyOf(requests);
            failureModes = Set.copyOf(failureModes);
            if (maxWait == null || maxWait.isNegative()) {
                throw new IllegalArgumentException("maxWait must be zero or more, but was " + maxWait);
            }
        }

        /** A call that does not wait for room. */
        public static Call of(String what, List<LimitRequest> requests, Set<FailureMode> failureModes) {
            return new Call(what, requests, failureModes, Duration.ZERO);
        }

        /**
         * What a failure of this call takes, after the fact (see {@link DecidedCall#failed}): its requests that were
         * decided without taking anything (check-only), now taking their cost; no requests when there are none.
         */
        public Call failures() {
            return Call.of(what, RateLimitDecisions.failures(requests), failureModes);
        }
    }

    /** What a call used once it ran, charged after the fact (see {@link RateLimiter#chargeAsync}). */
    public record Charge(List<LimitRequest> requests, long units) {

        public Charge {
            requests = List.copyOf(requests);
        }
    }

    /**
     * What follows an admitted call, as its integration knows it: which ends are failures, what a failure takes, what
     * the call is charged. The defaults: no result is a failure (an error is), a failure takes the call's check-only
     * requests ({@link Call#failures()}), nothing is charged.
     */
    public interface After {

        /** Nothing follows but what {@link Call#failures()} says. */
        After DEFAULT = new After() {};

        /** Whether a result the call returned is a failure (an error status, say). */
        default boolean failure(@Nullable Object result) {
            return false;
        }

        /** What a failure of the admitted call takes, as a call of the flow (no requests for nothing). */
        default Call failures(Call admitted) {
            return admitted.failures();
        }

        /** Whether the call may be charged after it ran; when false, {@link #charged} is never asked. */
        default boolean charges() {
            return false;
        }

        /**
         * What the call is charged once it ran, given the requests it was admitted with.
         *
         * @param result what it returned, null when it failed
         * @param failed whether it threw (or its answer failed)
         */
        default List<Charge> charged(List<LimitRequest> requests, @Nullable Object result, boolean failed) {
            return List.of();
        }
    }

    /**
     * Decides one call and gives what drives the rest of it: the refusal to answer, the admission to report, and the
     * end to tell (see {@link DecidedCall}). {@code call} is asked as for {@link #decide}; what it throws reaches the
     * caller.
     *
     * @param after what follows the call, as its integration knows it ({@link After#DEFAULT} for nothing but failures
     *     of check-only requests)
     */
    public DecidedCall begin(CallerContext caller, Function<CallerContext, Call> call, After after) {
        return new DecidedCall(this, decide(caller, call), after);
    }

    /** {@link #begin} without blocking the calling thread, as {@link #decideAsync}. */
    public CompletionStage<DecidedCall> beginAsync(
            CallerContext caller, Function<CallerContext, Call> call, After after) {
        return decideAsync(caller, call).thenApply(outcome -> new DecidedCall(this, outcome, after));
    }

    /**
     * Decides one call: the whole flow. {@code call} describes what the call asks; it is asked only once the caller is
     * known not to be exempt (so that an exempt caller's keys are never read), and may give null when no limit applies.
     * What it throws (a key that cannot be read: {@link io.github.ratelimit.core.RateLimitEvaluationException})
     * reaches the caller.
     *
     * @param caller who calls; {@link CallerContext#NONE} outside a request (nobody is then exempt)
     * @param call what the call asks, given the caller
     * @return how the call was decided, never null
     */
    public Outcome decide(CallerContext caller, Function<CallerContext, Call> call) {
        Call asked = ask(caller, call);
        if (asked == null) {
            return NOT_LIMITED;
        }
        Outcome blocked = blocked(caller, asked);
        if (blocked != null) {
            return blocked;
        }
        return decideNow(asked);
    }

    /**
     * {@link #decide} without blocking the calling thread: the waits are timers. The stage completes with the outcome
     * (Redis being unavailable is an outcome, not a failure); it fails only with what {@code call} threw or with errors
     * that are not Redis being unavailable.
     */
    public CompletionStage<Outcome> decideAsync(CallerContext caller, Function<CallerContext, Call> call) {
        Call asked;
        try {
            asked = ask(caller, call);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (asked == null) {
            return CompletableFuture.completedFuture(NOT_LIMITED);
        }
        Outcome blocked = blocked(caller, asked);
        if (blocked != null) {
            return CompletableFuture.completedFuture(blocked);
        }
        return decideNowAsync(asked);
    }

    /**
     * After an admitted call failed: takes what its failure costs at once (the requests of its limits that count
     * failures only, such as {@link Call#failures()}), without asking again whether the caller is exempt or blocked.
     * Gives null when the call asks nothing.
     */
    @Nullable
    Outcome countFailures(Call failures) {
        return failures.requests().isEmpty() ? null : decideNow(failures);
    }

    /** {@link #countFailures} without blocking the calling thread; the stage completes with null when nothing counts. */
    CompletionStage<Outcome> countFailuresAsync(Call failures) {
        return failures.requests().isEmpty() ? CompletableFuture.completedFuture(null) : decideNowAsync(failures);
    }

    private static List<LimitRequest> failures(List<LimitRequest> requests) {
        List<LimitRequest> failures = null;
        for (LimitRequest request : requests) {
            if (request.checkOnly()) {
                if (failures == null) {
                    failures = new ArrayList<>(requests.size());
                }
                failures.add(request.taking());
            }
        }
        return failures == null ? List.of() : failures;
    }

    /**
     * Charges what calls used after they ran (see {@link RateLimiter#chargeAsync}), waiting for it within the budget so
     * that the caller's next call meets it. Never fails the call, which has run: a charge Redis could not take is
     * logged (once until a charge succeeds again) and lost.
     */
    void charge(String what, List<Charge> charges) {
        try {
            chargeAsync(what, charges).toCompletableFuture().join();
        } catch (CompletionException e) {
            // logged where it failed
        }
    }

    /** {@link #charge} without blocking: the stage completes once every charge was taken, or failed and was logged. */
    CompletionStage<Void> chargeAsync(String what, List<Charge> charges) {
        if (charges.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] all = new CompletableFuture<?>[charges.size()];
        for (int i = 0; i < all.length; i++) {
            Charge charged = charges.get(i);
            CompletionStage<Void> charge;
            try {
                charge = limiter.get().chargeAsync(charged.requests(), charged.units());
            } catch (RuntimeException e) {
                charge = CompletableFuture.failedFuture(e);
            }
            all[i] = charge.handle((done, error) -> {
                        events.charged(what, charged.units(), error == null ? null : Futures.cause(error));
                        return null;
                    })
                    .toCompletableFuture();
        }
        return CompletableFuture.allOf(all);
    }

    /** Whether a limit declaring this advice staggers it, the application-wide default applied. */
    public boolean staggered(RetryAdvice advice) {
        return advice == RetryAdvice.STAGGERED || (advice == RetryAdvice.DEFAULT && staggeredByDefault.getAsBoolean());
    }

    /** An operator's override of the limit name in force, or null (plans' limits are never overridden). */
    public LimitOverrides.@Nullable Change override(String name) {
        LimitOverrides current = overrides.get();
        return current == null ? null : current.get(name);
    }

    /** Whether every limit is in shadow mode right now. */
    public boolean allShadow() {
        return allShadow.getAsBoolean();
    }

    /**
     * Where listeners of the flow's events are added: decisions made without Redis ({@code fellBack}), calls refused
     * by a block ({@code blocked}) and charges after calls ({@code charged}); {@link #fallbacks()} is the first. The
     * limiter's own decisions are its events (see {@link RateLimitEvents.Source}).
     */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    /** What this flow decided without Redis, charged and refused for blocks, counted: its first listener. */
    public Fallbacks fallbacks() {
        return fallbacks;
    }

    private @Nullable Call ask(CallerContext caller, Function<CallerContext, Call> call) {
        if (exemptions.exempt(caller)) {
            return null;
        }
        Call asked = call.apply(caller);
        return asked == null || asked.requests().isEmpty() ? null : asked;
    }

    /**
     * The refusal of a call whose caller an operator blocked, or null: a block of the caller's address ({@code ip}),
     * principal or a header's value ({@code header:x-api-key}) applies whatever the call's keys, a block of another
     * kind (an application's own) when one of the call's identifiers has that kind and value. Read from memory (see
     * {@link ClientBlocks}); the refusal's advice is the time the block has left.
     */
    private @Nullable Outcome blocked(CallerContext caller, Call call) {
        ClientBlocks blocked = blocks.get();
        if (blocked == null || blocked.isEmpty()) {
            return null;
        }
        List<ClientIdentifier> candidates = new ArrayList<>(call.requests().size() + 2);
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
        for (LimitRequest request : call.requests()) {
            candidates.add(request.identifier());
        }
        for (ClientIdentifier candidate : candidates) {
            Duration left = blocked.blockedFor(candidate);
            if (left != null) {
                events.blocked(candidate);
                long ms = Math.max(1, left.toMillis());
                LimitRequest request =
                        LimitRequest.of(RateLimit.of("blocked", Algorithm.FIXED_WINDOW, 1, ms), candidate, 1);
                return new Refused(
                        new Decision(
                                false,
                                List.of(new Decision.LimitOutcome(request, false, 0, left, left)),
                                blocked.now()),
                        call);
            }
        }
        return null;
    }

    private Outcome decideNow(Call call) {
        try {
            RateLimiter limiter = this.limiter.get();
            return decided(
                    call.maxWait().isZero()
                            ? limiter.tryAcquire(call.requests())
                            : limiter.tryAcquire(call.requests(), call.maxWait()),
                    call);
        } catch (RedisUnavailableException e) {
            return withoutRedis(call, e);
        }
    }

    private CompletionStage<Outcome> decideNowAsync(Call asked) {
        CompletionStage<Decision> decision;
        try {
            RateLimiter limiter = this.limiter.get();
            decision = asked.maxWait().isZero()
                    ? limiter.tryAcquireAsync(asked.requests())
                    : limiter.tryAcquireAsync(asked.requests(), asked.maxWait());
        } catch (RuntimeException e) {
            decision = CompletableFuture.failedFuture(e);
        }
        return decision.handle((decided, error) -> {
            if (error == null) {
                return decided(decided, asked);
            }
            Throwable cause = Futures.cause(error);
            if (cause instanceof RedisUnavailableException unavailable) {
                return withoutRedis(asked, unavailable);
            }
            throw cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
        });
    }

    private Outcome decided(Decision decision, Call call) {
        local.redisDecides();
        return outcomeOf(decision, call);
    }

    private Outcome outcomeOf(Decision decision, Call call) {
        shadowRejections.record(decision);
        return decision.allowed() ? new Admitted(decision, call) : new Refused(decision, call);
    }

    private Outcome withoutRedis(Call call, RedisUnavailableException e) {
        switch (strictest(call.failureModes(), failureMode.get())) {
            case CLOSED -> {
                events.fellBack(call.what(), FailureMode.CLOSED, e);
                return new RefusedClosed(e, call);
            }
            case LOCAL -> {
                events.fellBack(call.what(), FailureMode.LOCAL, e);
                return outcomeOf(local.decide(call.what(), call.requests(), e), call);
            }
            default -> {
                events.fellBack(call.what(), FailureMode.OPEN, e);
                return new UncheckedOpen(e, call);
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

    private static final Outcome NOT_LIMITED = new NotLimited();

    /**
     * How a call was decided. Every caller (the interceptor, the filters, the outbound clients) turns it into its
     * answer the same way: throw or answer {@link #refusal()} when there is one, else report {@link #admitted()} (the
     * RateLimit fields) when there is one, and go on.
     */
    public sealed interface Outcome permits NotLimited, Admitted, Refused, UncheckedOpen, RefusedClosed {

        /** What refuses the call (answered 429 or 503), or null when it goes on; a new exception on each call. */
        default @Nullable RuntimeException refusal() {
            return null;
        }

        /** The decision that admitted the call, to report in the answer, or null when none was made. */
        default @Nullable Decision admitted() {
            return null;
        }

        /** What the call asked, or null when no limit applied. */
        default @Nullable Call call() {
            return null;
        }
    }

    /** No limit applied: the caller is exempt, or nothing of the call is limited. The call goes on, uncounted. */
    public record NotLimited() implements Outcome {}

    /** Every enforced limit had room; each took its cost. */
    public record Admitted(Decision decision, Call call) implements Outcome {
        @Override
        public Decision admitted() {
            return decision;
        }
    }

    /** An enforced limit had no room (or an operator blocked the caller); nothing was taken. */
    public record Refused(Decision decision, Call call) implements Outcome {
        @Override
        public RuntimeException refusal() {
            return new RateLimitExceededException(decision);
        }
    }

    /** Redis could not decide and the call's limits fail open: it goes through unchecked. */
    public record UncheckedOpen(RedisUnavailableException cause, Call call) implements Outcome {}

    /** Redis could not decide and a limit of the call fails closed: it is refused (503). */
    public record RefusedClosed(RedisUnavailableException cause, Call call) implements Outcome {
        @Override
        public RuntimeException refusal() {
            return cause;
        }
    }
}
