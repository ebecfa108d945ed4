package io.github.ratelimit.spring.usage;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.ClientLimits;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a customer used of their limits, and the changes application code makes to them, by limit name and the value the
 * customer's calls are counted by: {@code usage.of("monthly", apiKey)} for {@code @RateLimited(plans = "monthly", key =
 * "#apiKey")}. A name is an annotation's, a path rule's, a plan group's (the customer's plan's limits) or a gateway
 * limit's; operators' overrides apply as on calls.
 *
 * <p>Reading spends nothing and refreshes no expiry. A credit ({@link #credit}) and a reset ({@link #reset}) apply on
 * every instance before they return, and are logged on {@code io.github.ratelimit.audit} with who made them (the
 * customer named by the start of its identifier's digest, never the value, which may be a secret) and told to
 * the listeners ({@code operatorChanged("credit" | "reset", name)}), as operators' changes are. Every method may throw
 * {@link UnknownLimitException} for a name or key the application does not declare, and
 * {@link io.github.ratelimit.core.RedisUnavailableException} when the store could not answer in time. A reactive
 * caller reads with {@link #ofAsync}; credits and resets wait for the other instances, so it makes them on a thread that
 * may block ({@code Schedulers.boundedElastic()}). While rate limits are off ({@code ratelimit.enabled=false}) the bean
 * stays: reads answer no window, credits grant nothing.
 */
public final class RateLimitUsage implements RateLimitEvents.Source {

    private static final Logger audit = LoggerFactory.getLogger("io.github.ratelimit.audit");

    private final @Nullable ClientLimits clients;
    private final RateLimiter limiter;
    private final RateLimitEvents events = new RateLimitEvents();

    /**
     * @param clients how names and values become limits and identifiers
     * @param limiter where the counts are
     */
    public RateLimitUsage(ClientLimits clients, RateLimiter limiter) {
        this.clients = clients;
        this.limiter = limiter;
    }

    private RateLimitUsage(RateLimiter limiter) {
        this.clients = null;
        this.limiter = limiter;
    }

    /**
     * While rate limits are off ({@code ratelimit.enabled=false}): nothing is counted, so every read answers no window,
     * a credit grants nothing and a reset forgets nothing; code that shows or credits quotas keeps working.
     */
    public static RateLimitUsage off(RateLimiter limiter) {
        return new RateLimitUsage(limiter);
    }

    /** Where listeners of the credits and resets made here are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    /**
     * What the customer used of every limit of a name whose declarations name one key.
     *
     * @param name the limit name
     * @param value what the key gives for the customer (the API key, the user id)
     */
    public Usage of(String name, String value) {
        return of(name, null, value);
    }

    /**
     * What the customer used of every limit of a name, read without counting a call: per window its quota, what is
     * used, what remains and when it resets (on the store's clock).
     *
     * @param key the key as the declarations name it ({@code #apiKey}, {@code header:X-Api-Key}); null when they name
     *     one
     */
    public Usage of(String name, @Nullable String key, String value) {
        if (clients == null) {
            return NothingCounted.read();
        }
        return limiter.usage(find(name, key, value).requests());
    }

    /**
     * {@link #of(String, String, String)} without blocking the calling thread, for reactive callers; the stage fails
     * with {@link UnknownLimitException} or {@link io.github.ratelimit.core.RedisUnavailableException}.
     */
    public CompletionStage<Usage> ofAsync(String name, @Nullable String key, String value) {
        try {
            if (clients == null) {
                return CompletableFuture.completedFuture(of(name, key, value));
            }
            return limiter.usageAsync(find(name, key, value).requests());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #credit(String, String, String, long, String)} for a name whose declarations name one key. */
    public long credit(String name, String value, long units, @Nullable String by) {
        return credit(name, null, value, units, by);
    }

    /**
     * Grants the customer {@code units} more under every limit of a name in force for them, for the current window or
     * period, on every instance (see {@link RateLimiter#credit}): a fixed window or calendar quota past its limit, a
     * sliding window or bucket at most what it counted.
     *
     * @param units at least 1
     * @param by who grants it, for the audit log (a user, a billing job); null when unknown
     * @return the fewest units any of the limits granted
     */
    public long credit(String name, @Nullable String key, String value, long units, @Nullable String by) {
        if (units < 1) {
            throw new IllegalArgumentException(Messages.atLeast("units", 1, units));
        }
        if (clients == null) {
            return 0;
        }
        ClientLimits.Found found = find(name, key, value);
        long granted = limiter.credit(found.requests(), units);
        events.operatorChanged("credit", name);
        audit.info(
                "{} credited {} {} with {} units of '{}' on every instance ({} granted)",
                who(by),
                found.client().kind(),
                fingerprint(found.client()),
                units,
                name,
                granted);
        return granted;
    }

    /**
     * Forgets everything counted for the customer under every limit of a name (every plan's, for a plan group), on
     * every instance, as if they had never called.
     *
     * @param by who resets it, for the audit log; null when unknown
     */
    public void reset(String name, @Nullable String key, String value, @Nullable String by) {
        if (clients == null) {
            return;
        }
        ClientLimits.Found found = find(name, key, value);
        found.declared().forEach(limit -> limiter.reset(limit, found.client()));
        events.operatorChanged("reset", name);
        audit.info(
                "{} reset {} {} under '{}' on every instance",
                who(by),
                found.client().kind(),
                fingerprint(found.client()),
                name);
    }

    /**
     * A limit name the application does not declare, a key its declarations do not name, or an address that is not
     * complete: the message says which, and what there is.
     */
    public static final class UnknownLimitException extends IllegalArgumentException {

        private final boolean incomplete;

        UnknownLimitException(ClientLimits.NotFoundException cause) {
            super(cause.getMessage(), cause);
            this.incomplete = cause.badRequest();
        }

        /** Whether the address is incomplete (a key needed, a value missing: HTTP 400) rather than unknown (404). */
        public boolean incomplete() {
            return incomplete;
        }
    }

    private ClientLimits.Found find(String name, @Nullable String key, String value) {
        try {
            return java.util.Objects.requireNonNull(clients).find(name, key, value, null);
        } catch (ClientLimits.NotFoundException e) {
            throw new UnknownLimitException(e);
        }
    }

    /**
     * A customer as the audit log names it: the start of the identifier's digest (its kind and value, as its keys are
     * made), never the value, which may be a secret (an API key); an auditor who has the value finds its lines.
     */
    public static String fingerprint(ClientIdentifier client) {
        return "sha256:" + HexFormat.of().formatHex(client.digest(), 0, 6);
    }

    private static String who(@Nullable String by) {
        return by == null ? "Application code (no principal)" : "'" + Messages.printable(by) + "'";
    }
}
