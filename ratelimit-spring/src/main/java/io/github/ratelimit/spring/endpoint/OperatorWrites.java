package io.github.ratelimit.spring.endpoint;

import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.format.datetime.standard.DurationFormatterUtils;

/**
 * What operators change through the {@code ratelimits} endpoint, on every instance: overrides of limits by name and
 * blocks of clients. Off (403) unless {@code ratelimit.actuator.write-enabled=true}; bad input answers 400 naming what
 * was wrong and stores nothing; a Redis that cannot take the change answers 503. Every change is logged on the
 * {@code io.github.ratelimit.audit} logger with who made it, and told to the endpoint's listeners (metrics count it).
 */
final class OperatorWrites {

    private static final org.slf4j.Logger audit = org.slf4j.LoggerFactory.getLogger("io.github.ratelimit.audit");

    private final Supplier<ClientBlocks> blocks;
    private final Supplier<LimitOverrides> overrides;
    private final RateLimitListener changes;
    private final RateLimiter limiter;
    private final Supplier<List<DeclaredLimit>> declared;
    private final boolean writeEnabled;
    private final Duration maxBlock;

    /**
     * @param limiter whose refusals kept in memory are forgotten when a quota changes
     * @param declared the limits the application declares, which an override must name
     * @param blocks the clients blocked by operators, or a supplier of null without Redis
     * @param overrides operators' overrides of limits by name, or a supplier of null without Redis
     * @param writeEnabled whether anything may be written ({@code ratelimit.actuator.write-enabled})
     * @param maxBlock the longest block ({@code ratelimit.actuator.max-block})
     * @param changes told each change made
     */
    OperatorWrites(
            RateLimiter limiter,
            Supplier<List<DeclaredLimit>> declared,
            Supplier<ClientBlocks> blocks,
            Supplier<LimitOverrides> overrides,
            boolean writeEnabled,
            Duration maxBlock,
            RateLimitListener changes) {
        this.changes = changes;
        this.limiter = limiter;
        this.declared = declared;
        this.blocks = blocks;
        this.overrides = overrides;
        this.writeEnabled = writeEnabled;
        this.maxBlock = maxBlock;
    }

    boolean writeEnabled() {
        return writeEnabled;
    }

    /**
     * Overrides a limit name on every instance, until removed: {@code POST /actuator/ratelimits/{name}/override} with
     * JSON {@code {"limit": 2, "window": "1s"}} (either or both) or {@code {"shadow": true}}. What was counted carries
     * over to the new quota (a window's key does not hold its quota); a new window starts its own count.
     */
    OperatorAnswer override(
            String name,
            @Nullable Long limit,
            @Nullable String window,
            @Nullable Boolean shadow,
            @Nullable Principal principal) {
        OperatorAnswer refused = overridable(name);
        if (refused != null) {
            return refused;
        }
        Duration every;
        try {
            every = window == null ? null : duration(window.trim());
        } catch (IllegalArgumentException e) {
            return error(400, "window must be a duration such as 1s, 1m or 1h, but was '" + window + "'");
        }
        LimitOverrides.Change change;
        try {
            change = new LimitOverrides.Change(limit, every, shadow);
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
        try {
            overrides.get().set(name, change);
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return error(503, "the override was not stored: " + e.getMessage());
        }
        limiter.quotasChanged(); // refusals kept under the old quota must not outlive it
        changes.operatorChanged("override", name);
        audit.info("{} overrode limit '{}' on every instance: {}", who(principal), name, change);
        return new OperatorAnswer(null, 204);
    }

    /** Removes a limit name's override on every instance: {@code DELETE /actuator/ratelimits/{name}/override}. */
    OperatorAnswer removeOverride(String name, @Nullable Principal principal) {
        OperatorAnswer refused = overridable(name);
        if (refused != null) {
            return refused;
        }
        boolean removed;
        try {
            removed = overrides.get().remove(name);
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return error(503, "the override was not removed: " + e.getMessage());
        }
        limiter.quotasChanged();
        changes.operatorChanged("override_removed", name);
        audit.info(
                "{} removed the override of limit '{}' on every instance ({})",
                who(principal),
                name,
                removed ? "it was in force" : "there was none");
        return new OperatorAnswer(null, 204);
    }

    private @Nullable OperatorAnswer overridable(String name) {
        if (!writeEnabled) {
            return error(403, "writing is disabled; set ratelimit.actuator.write-enabled=true");
        }
        if (overrides.get() == null) {
            return error(503, "no store of overrides is configured (Redis, or ratelimit.store=memory)");
        }
        List<DeclaredLimit> named = declared.get().stream()
                .filter(d -> d.limit().name().equals(name))
                .toList();
        if (named.isEmpty()) {
            return error(400, "no limit named '" + name + "'");
        }
        if (named.get(0).limit().plan() != null) {
            return error(400, "'" + name + "' is a plan group: its limits come from its plans");
        }
        return null;
    }

    static OperatorAnswer error(int status, @Nullable String message) {
        return new OperatorAnswer(Map.of("error", String.valueOf(message)), status);
    }

    /**
     * Blocks a client on every instance: {@code POST /actuator/ratelimits/blocks} with JSON {@code {"key": "ip",
     * "value": "203.0.113.9", "duration": "30s"}}. Every limited call of the client is refused with 429 and
     * {@code Retry-After} the time left, until the block ends by itself or is lifted. Logged with who made it.
     */
    OperatorAnswer block(
            @Nullable String key, @Nullable String value, @Nullable String duration, @Nullable Principal principal) {
        OperatorAnswer refused = writable(true);
        if (refused != null) {
            return refused;
        }
        if (key == null || key.isBlank() || value == null || value.isBlank()) {
            return new OperatorAnswer(
                    Map.of("error", "give the client as key and value, such as ip and an address"), 400);
        }
        if (value.length() > 256) {
            return new OperatorAnswer(Map.of("error", "value must be at most 256 characters"), 400);
        }
        Duration lasts;
        try {
            lasts = duration == null ? null : duration(duration.trim());
        } catch (IllegalArgumentException e) {
            return new OperatorAnswer(
                    Map.of("error", "duration must be a duration such as 30s, 10m or 1h, but was '" + duration + "'"),
                    400);
        }
        if (lasts == null || lasts.toMillis() < 1 || lasts.compareTo(maxBlock) > 0) {
            return new OperatorAnswer(
                    Map.of(
                            "error",
                            "duration must be between 1ms and " + maxBlock + " (ratelimit.actuator.max-block), but was "
                                    + duration),
                    400);
        }
        ClientIdentifier client = ClientIdentifier.of(ClientIdentifier.normalizeKind(key), value);
        try {
            blocks.get().block(client, lasts);
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return error(503, "the block was not stored: " + e.getMessage());
        }
        changes.operatorChanged("block", client.kind() + " " + client.value());
        audit.info("{} blocked {} {} for {} on every instance", who(principal), client.kind(), client.value(), lasts);
        return new OperatorAnswer(null, 204);
    }

    /** Why a write is refused (disabled, or a block without the store of blocks), or null when it may go ahead. */
    private @Nullable OperatorAnswer writable(boolean ofBlocks) {
        if (!writeEnabled) {
            return new OperatorAnswer(
                    Map.of("error", "writing is disabled; set ratelimit.actuator.write-enabled=true"), 403);
        }
        if (ofBlocks && blocks.get() == null) {
            return new OperatorAnswer(Map.of("error", "blocks need Redis, which is not configured"), 503);
        }
        return null;
    }

    /**
     * A duration as properties write it ({@code 30s}, {@code 500ms}, {@code 2h}, a number of milliseconds) or
     * ISO-8601, read as Spring reads it; {@link IllegalArgumentException} naming the text otherwise.
     */
    static Duration duration(String text) {
        return DurationFormatterUtils.detectAndParse(text);
    }

    static String who(@Nullable Principal principal) {
        return principal == null ? "An operator (no principal)" : "Operator '" + principal.getName() + "'";
    }

    /**
     * Takes a client out of the penalty box of every limit of a name that has a penalty:
     * {@code DELETE /actuator/ratelimits/{name}/penalty?key=ip&value=203.0.113.9}; its count starts afresh.
     */
    OperatorAnswer liftPenalty(
            String name, List<RateLimit> limits, ClientIdentifier client, @Nullable Principal principal) {
        OperatorAnswer refused = writable(false);
        if (refused != null) {
            return refused;
        }
        List<RateLimit> penalized =
                limits.stream().filter(l -> !l.penalty().isZero()).toList();
        if (penalized.isEmpty()) {
            return error(404, "limit '" + name + "' has no penalty");
        }
        int lifted = 0;
        try {
            for (RateLimit limit : penalized) {
                lifted += limiter.liftPenalty(limit, client) ? 1 : 0;
            }
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return error(503, "the penalty was not lifted: " + e.getMessage());
        }
        changes.operatorChanged("lift-penalty", name + " " + client.kind() + " " + client.value());
        audit.info(
                "{} lifted the penalty of {} {} under limit '{}' on every instance ({})",
                who(principal),
                client.kind(),
                client.value(),
                name,
                lifted > 0 ? "it was in force" : "there was none");
        return new OperatorAnswer(Map.of("name", name, "lifted", lifted), 200);
    }

    /** Lifts a block: {@code DELETE /actuator/ratelimits/blocks?key=ip&value=203.0.113.9}. */
    OperatorAnswer lift(@Nullable String key, @Nullable String value, @Nullable Principal principal) {
        OperatorAnswer refused = writable(true);
        if (refused != null) {
            return refused;
        }
        if (key == null || key.isBlank() || value == null || value.isBlank()) {
            return new OperatorAnswer(Map.of("error", "give the client as key and value"), 400);
        }
        ClientIdentifier client = ClientIdentifier.of(ClientIdentifier.normalizeKind(key), value);
        boolean lifted;
        try {
            lifted = blocks.get().lift(client);
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return error(503, "the block was not lifted: " + e.getMessage());
        }
        changes.operatorChanged("lift", client.kind() + " " + client.value());
        audit.info(
                "{} lifted the block of {} {} on every instance ({})",
                who(principal),
                client.kind(),
                client.value(),
                lifted ? "it was in force" : "there was none");
        return new OperatorAnswer(null, 204);
    }

    /**
     * Releases the held locks of a name and key whoever holds them ({@code DELETE /actuator/ratelimits/locks/{name}
     * ?key=...}); their holders are told they lost them. 204 when one was released, 404 when none of that name and key
     * is held.
     */
    OperatorAnswer forceRelease(
            io.github.ratelimit.core.locks.LockManager locks,
            String name,
            @Nullable String key,
            @Nullable Principal principal) {
        OperatorAnswer refused = writable(false);
        if (refused != null) {
            return refused;
        }
        if (locks == null) {
            return error(404, "this application has no lock manager");
        }
        String shown = key == null ? "" : key;
        int released = 0;
        try {
            for (io.github.ratelimit.core.locks.LockManager.HeldLock held :
                    locks.heldLocks(RateLimitOperations.MAX_LISTED_LOCKS)) {
                if (held.name().equals(name)
                        && (held.shownKey().equals(shown) || held.key().equals(shown))
                        && locks.forceRelease(held.key())) {
                    released++;
                }
            }
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return error(503, "the lock was not released: " + e.getMessage());
        } catch (UnsupportedOperationException e) {
            return error(404, e.getMessage());
        }
        if (released == 0) {
            return error(404, "no lock named '" + name + "' with key '" + shown + "' is held");
        }
        changes.operatorChanged("lock_released", name);
        audit.warn(
                "{} released lock '{}' (key '{}') on every instance; its holder was told it lost it",
                who(principal),
                name,
                io.github.ratelimit.core.internal.Messages.printable(shown));
        return new OperatorAnswer(null, 204);
    }
}
