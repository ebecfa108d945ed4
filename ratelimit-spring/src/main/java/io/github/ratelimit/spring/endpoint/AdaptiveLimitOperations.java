package io.github.ratelimit.spring.endpoint;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Status;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.Steering;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.spring.internal.MethodDeclarations;
import io.github.ratelimit.spring.internal.MethodDeclarations.AdaptiveLimit;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What the {@code ratelimits} endpoint does for adaptive concurrency limits, under {@code /actuator/ratelimits/adaptive}:
 * lists them ({@code GET}), reads where one stands with its last windows ({@code GET .../{name}}), and steers it for
 * every instance ({@code POST .../{name}} with {@code {"limit": 30}} to pin it, or {@code {"min": 5, "max": 50}} for its
 * bounds; {@code DELETE .../{name}} to clear). A limit keyed by an expression is named by its key's value
 * ({@code value=tenant-7}); one keyed by a constant such as {@code 'orders-db'} needs none. Writes need
 * {@code ratelimit.actuator.write-enabled=true} and are logged with who made them.
 */
public final class AdaptiveLimitOperations {

    private static final org.slf4j.Logger audit = org.slf4j.LoggerFactory.getLogger("io.github.ratelimit.audit");

    /** The name under which adaptive limits are read and steered; no rate limit may be read by it. */
    public static final String ADAPTIVE = "adaptive";

    private final Supplier<Map<String, AdaptiveLimit>> declared;
    private final Supplier<@Nullable AdaptiveConcurrencyLimiter> limiter;
    private final boolean writeEnabled;
    private final RateLimitEvents changes;

    /**
     * @param methods what the annotations declare (the adaptive limits among them, by name; the first method's where
     *     several share a name)
     * @param limiter the store's adaptive limits, or a supplier of null when the store has none
     * @param writeEnabled whether they may be steered here ({@code ratelimit.actuator.write-enabled})
     * @param changes where operators' changes are told ({@code ratelimit.operator.changes})
     */
    public AdaptiveLimitOperations(
            ObjectProvider<? extends MethodDeclarations> methods,
            Supplier<@Nullable AdaptiveConcurrencyLimiter> limiter,
            boolean writeEnabled,
            RateLimitEvents changes) {
        this.declared = () -> {
            Map<String, AdaptiveLimit> all = new TreeMap<>();
            methods.stream().forEach(declared -> declared.adaptiveLimits().forEach(all::putIfAbsent));
            return all;
        };
        this.limiter = limiter;
        this.writeEnabled = writeEnabled;
        this.changes = changes;
    }

    /** Every adaptive limit declared, with its settings: {@code GET /actuator/ratelimits/adaptive}. */
    public OperatorAnswer list() {
        List<Map<String, Object>> limits = new ArrayList<>();
        declared.get().values().forEach(limit -> limits.add(describe(limit)));
        return new OperatorAnswer(Map.of("adaptive", limits), 200);
    }

    /**
     * Where one stands across the fleet, read without taking anything: {@code GET
     * /actuator/ratelimits/adaptive/{name}?value=...}. The answer has the limit, the no-load latency, the instances,
     * the operator's steering, and the last windows newest first, each with the limit its step gave.
     */
    public OperatorAnswer status(String name, @Nullable String value) {
        Found found;
        try {
            found = find(name, value);
        } catch (Refused e) {
            return e.answer;
        }
        Status status;
        try {
            status = found.store.status(name, found.identifier);
        } catch (RedisUnavailableException e) {
            return OperatorWrites.error(503, "the limit could not be read: " + e.getMessage());
        }
        Map<String, Object> answer = describe(found.limit);
        answer.put("value", found.identifier.value());
        if (status == null) {
            answer.put("limit", found.limit.settings().initial());
            answer.put("started", false); // no slot taken yet: it starts at its initial limit
            return new OperatorAnswer(answer, 200);
        }
        answer.put("started", status.limit() > 0);
        answer.put(
                "limit",
                status.limit() > 0 ? status.limit() : found.limit.settings().initial());
        if (status.noLoad() != null) {
            answer.put("noLoadMs", millis(status.noLoad()));
        }
        answer.put("instances", status.instances());
        if (status.steering() != null) {
            answer.put("steering", steering(status.steering()));
        }
        List<Map<String, Object>> windows = new ArrayList<>();
        for (AdaptiveConcurrencyLimiter.Window window : status.windows()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("window", window.index()); // on Redis, it started at window × windowMs (epoch ms)
            entry.put("limit", window.limit());
            entry.put("completed", window.completed());
            entry.put("dropped", window.dropped());
            entry.put("refused", window.refused());
            entry.put("peakInFlight", window.peakInFlight());
            if (window.meanLatency() != null) {
                entry.put("meanMs", millis(window.meanLatency()));
            }
            windows.add(entry);
        }
        answer.put("windows", windows);
        return new OperatorAnswer(answer, 200);
    }

    /**
     * Steers one for every instance, from its next window, until cleared: {@code POST
     * /actuator/ratelimits/adaptive/{name}} with {@code {"limit": 30}} (pinned, whatever the latency) or {@code {"min":
     * 5, "max": 50}} (either or both, in place of the declared ones).
     */
    public OperatorAnswer steer(
            String name,
            @Nullable Long pin,
            @Nullable Integer min,
            @Nullable Integer max,
            @Nullable String value,
            @Nullable Principal principal) {
        if (!writeEnabled) {
            return DISABLED;
        }
        Steering steering;
        try {
            if (pin != null && pin > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("limit must be at most " + Integer.MAX_VALUE + ", but was " + pin);
            }
            steering = new Steering(pin == null ? null : pin.intValue(), min, max);
        } catch (IllegalArgumentException e) {
            return OperatorWrites.error(
                    400, e.getMessage() + " (steer with {\"limit\": n} to pin it, or {\"min\": n, \"max\": n})");
        }
        return write(name, value, principal, steering);
    }

    /** Clears a steering: {@code DELETE /actuator/ratelimits/adaptive/{name}}; the limit goes on from where it is. */
    public OperatorAnswer clear(String name, @Nullable String value, @Nullable Principal principal) {
        return writeEnabled ? write(name, value, principal, null) : DISABLED;
    }

    private static final OperatorAnswer DISABLED =
            OperatorWrites.error(403, "writing is disabled; set ratelimit.actuator.write-enabled=true");

    /** Stores a steering, or clears it (null), for every instance; audited and counted. */
    private OperatorAnswer write(
            String name, @Nullable String value, @Nullable Principal principal, @Nullable Steering steering) {
        Found found;
        try {
            found = find(name, value);
        } catch (Refused e) {
            return e.answer;
        }
        try {
            found.store.steer(name, found.identifier, steering);
        } catch (RedisUnavailableException e) {
            return OperatorWrites.error(
                    503, "the steering was not " + (steering == null ? "cleared" : "stored") + ": " + e.getMessage());
        }
        changes.operatorChanged(steering == null ? "adaptive_cleared" : "adaptive_steered", name);
        if (steering == null) {
            audit.info(
                    "{} cleared the steering of adaptive limit '{}' ({}) on every instance",
                    OperatorWrites.who(principal),
                    name,
                    found.identifier.value());
        } else {
            audit.info(
                    "{} steered adaptive limit '{}' ({}) on every instance: {}",
                    OperatorWrites.who(principal),
                    name,
                    found.identifier.value(),
                    steering(steering));
        }
        return new OperatorAnswer(null, 204);
    }

    /** The declared limit, the store and the identifier a request names. */
    private record Found(AdaptiveLimit limit, AdaptiveConcurrencyLimiter store, ClientIdentifier identifier) {}

    /** A request that names no limit the application can read: the answer that says what is wrong. */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        final transient OperatorAnswer answer;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.answer = OperatorWrites.error(status, message);
        }
    }

    private Found find(String name, @Nullable String value) throws Refused {
        AdaptiveLimit limit = declared.get().get(name);
        if (limit == null) {
            throw new Refused(
                    404,
                    "no adaptive concurrency limit named '" + name + "'; the declared ones are "
                            + declared.get().keySet());
        }
        AdaptiveConcurrencyLimiter store = limiter.get();
        if (store == null) {
            throw new Refused(503, "the store has no adaptive concurrency limits");
        }
        String given = value == null || value.isBlank() ? limit.constant() : value;
        if (given == null) {
            throw new Refused(
                    400,
                    "adaptive limit '" + name + "' is keyed by '" + limit.keyText()
                            + "': name the key's value (value=...)");
        }
        return new Found(limit, store, limit.identifier(given));
    }

    private static Map<String, Object> describe(AdaptiveLimit limit) {
        AdaptiveSettings settings = limit.settings();
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("name", limit.name());
        entry.put("key", limit.keyText());
        entry.put("min", settings.min());
        entry.put("max", settings.max());
        entry.put("initial", settings.initial());
        entry.put("tolerance", settings.tolerance());
        entry.put("windowMs", settings.window().toMillis());
        return entry;
    }

    private static Map<String, Object> steering(Steering steering) {
        Map<String, Object> entry = new LinkedHashMap<>();
        if (steering.pin() != null) {
            entry.put("limit", steering.pin());
        }
        if (steering.min() != null) {
            entry.put("min", steering.min());
        }
        if (steering.max() != null) {
            entry.put("max", steering.max());
        }
        return entry;
    }

    private static double millis(Duration latency) {
        return latency.toNanos() / 1_000_000.0;
    }
}
