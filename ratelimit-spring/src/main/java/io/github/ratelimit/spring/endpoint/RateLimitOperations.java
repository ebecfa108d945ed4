package io.github.ratelimit.spring.endpoint;

import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.spring.definition.ClientLimits;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.spring.definition.Plans;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What the {@code ratelimits} actuator endpoint does, without the actuator: every limit the application knows (annotations and filter rules, with their
 * source); the state of one client under one limit name (read without taking anything); and, only when
 * {@code ratelimit.actuator.reset-enabled=true}, forgetting a client's counts.
 *
 * <p>A client is named by one of the keys the list shows for the limit and the value it had, exactly as the request
 * path identifies it ({@link ClientIdentifier}): {@code key=#ip&value=203.0.113.9} for an annotation keyed by
 * {@code #ip}, {@code key=client&value=ip:203.0.113.9} for a rule keyed by {@code client},
 * {@code key=header:X-Api-Key&value=...} for a header rule (in any case), plus {@code path=/users/1} for a
 * per-path rule. For a plan group, the state is the client's plan's, named in the answer ({@code plan}); the list shows
 * every plan's limits. Operators' overrides and blocks are written through {@link OperatorWrites}.
 */
public final class RateLimitOperations implements RateLimitEvents.Source {

    private final RateLimitEvents events = new RateLimitEvents();

    private final ObjectProvider<DeclaredLimits> sources;
    private final RateLimiter limiter;
    private final boolean resetEnabled;
    private final Plans plans;

    /**
     * @param sources every source of declared limits (annotations, path rules, gateway routes)
     * @param limiter what reads and resets a client's state
     * @param resetEnabled whether counts may be forgotten here ({@code ratelimit.actuator.reset-enabled})
     * @param plans the plan groups, to show a client's plan
     * @param blocks the clients blocked by operators, or a supplier of null without Redis
     * @param overrides operators' overrides of limits by name, or a supplier of null without Redis
     * @param writeEnabled whether blocks may be set and lifted here ({@code ratelimit.actuator.write-enabled})
     * @param maxBlock the longest block ({@code ratelimit.actuator.max-block})
     * @param locks the application's lock manager, or a supplier of null without one
     */
    public RateLimitOperations(
            ObjectProvider<DeclaredLimits> sources,
            RateLimiter limiter,
            boolean resetEnabled,
            Plans plans,
            Supplier<ClientBlocks> blocks,
            Supplier<LimitOverrides> overrides,
            boolean writeEnabled,
            Duration maxBlock,
            Supplier<LockManager> locks) {
        this.locks = locks;
        this.overrides = overrides;
        this.sources = sources;
        this.limiter = limiter;
        this.resetEnabled = resetEnabled;
        this.plans = plans;
        this.blocks = blocks;
        this.writes = new OperatorWrites(limiter, this::declared, blocks, overrides, writeEnabled, maxBlock, events);
        this.clients = new ClientLimits(this::declared, plans, overrides::get);
    }

    private final ClientLimits clients;

    private final Supplier<ClientBlocks> blocks;
    private final Supplier<LimitOverrides> overrides;
    private final Supplier<LockManager> locks;
    private final OperatorWrites writes;

    /** Where listeners of operators' changes made here are added. */
    @Override
    public RateLimitEvents events() {
        return events;
    }

    /** The name under which blocks are set ({@code POST}) and lifted ({@code DELETE}); no limit may be read by it. */
    static final String BLOCKS = "blocks";

    /** The path under a limit's name where its override is set ({@code POST}) and removed ({@code DELETE}). */
    static final String OVERRIDE = "override";

    /**
     * Overrides a limit name on every instance, until removed: {@code POST /actuator/ratelimits/{name}/override} with
     * JSON {@code {"limit": 2, "window": "1s"}} (either or both) or {@code {"shadow": true}}. What was counted carries
     * over to the new quota (a window's key does not hold its quota); a new window starts its own count.
     */
    public OperatorAnswer override(
            String name,
            String action,
            @Nullable Long limit,
            @Nullable String window,
            @Nullable Boolean shadow,
            @Nullable Principal principal) {
        if (!OVERRIDE.equals(action)) {
            return unknownAction(action);
        }
        return writes.override(name, limit, window, shadow, principal);
    }

    /**
     * Removes a limit name's override on every instance: {@code DELETE /actuator/ratelimits/{name}/override}; or takes a
     * client out of its penalty box: {@code DELETE /actuator/ratelimits/{name}/penalty?key=ip&value=203.0.113.9}
     * (parameters as for {@link #state}).
     */
    public OperatorAnswer removeOverride(
            String name,
            String action,
            @Nullable String key,
            @Nullable String value,
            @Nullable String path,
            @Nullable Principal principal) {
        if (LOCKS.equals(name)) {
            // DELETE /actuator/ratelimits/locks/{lock name}?key=...: an operator frees a stuck lock
            return writes.forceRelease(locks.get(), action, key, principal);
        }
        if (PENALTY.equals(action)) {
            ClientLimits.Found found;
            try {
                found = clients.find(name, key, value, path);
            } catch (ClientLimits.NotFoundException e) {
                return notFound(e);
            }
            return writes.liftPenalty(name, found.declared(), found.client(), principal);
        }
        if (!OVERRIDE.equals(action)) {
            return unknownAction(action);
        }
        return writes.removeOverride(name, principal);
    }

    /** The name under which held locks are listed ({@code GET}), read and released ({@code DELETE}) by name and key. */
    static final String LOCKS = "locks";

    /** Locks listed at most. */
    static final int MAX_LISTED_LOCKS = 1_000;

    /**
     * The locks held across the fleet: {@code GET /actuator/ratelimits/locks} answers {@code {"locks": [{"name", "key",
     * "holder", "heldMs", "leaseLeftMs", "fencingToken"}, ...]}}, read in batches from the store.
     */
    private OperatorAnswer heldLocks(@Nullable String name, @Nullable String key) {
        LockManager manager = locks.get();
        if (manager == null) {
            return OperatorWrites.error(404, "this application has no lock manager");
        }
        List<Map<String, Object>> listed = new ArrayList<>();
        try {
            for (LockManager.HeldLock held : manager.heldLocks(MAX_LISTED_LOCKS)) {
                if (name != null
                        && (!held.name().equals(name)
                                || (key != null && !held.shownKey().equals(key)))) {
                    continue;
                }
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("name", held.name());
                entry.put("key", held.shownKey());
                entry.put("holder", held.holder());
                entry.put("heldMs", held.held().toMillis());
                entry.put("leaseLeftMs", held.leaseLeft().toMillis());
                entry.put("fencingToken", held.fencingToken());
                listed.add(entry);
            }
        } catch (io.github.ratelimit.core.RedisUnavailableException e) {
            return OperatorWrites.error(503, "the locks could not be read: " + e.getMessage());
        } catch (UnsupportedOperationException e) {
            return OperatorWrites.error(404, e.getMessage());
        }
        if (name != null) {
            // GET /actuator/ratelimits/locks/{name}?key=...: whether that lock is held, and by whom
            Map<String, Object> answer = new LinkedHashMap<>();
            answer.put("name", name);
            answer.put("key", key == null ? "" : key);
            answer.put("held", !listed.isEmpty());
            answer.put("locks", listed);
            return new OperatorAnswer(answer, 200);
        }
        return new OperatorAnswer(Map.of("locks", listed), 200);
    }

    /** One lock by name ({@code GET /actuator/ratelimits/locks/{name}?key=...}): whether it is held, and by whom. */
    public OperatorAnswer lock(String name, String lock, @Nullable String key) {
        if (!LOCKS.equals(name)) {
            return OperatorWrites.error(
                    404, "no read at /" + name + "/" + lock + "; use /actuator/ratelimits/locks/{name}");
        }
        return heldLocks(lock, key == null ? "" : key);
    }

    /** The path under a limit's name where a client's penalty is lifted ({@code DELETE}). */
    static final String PENALTY = "penalty";

    /** Penalties listed at most. */
    static final int MAX_LISTED_PENALTIES = 1_000;

    private static OperatorAnswer unknownAction(String action) {
        return OperatorWrites.error(
                404, "no operation '" + action + "'; use /actuator/ratelimits/{name}/override or /{name}/penalty");
    }

    /**
     * Blocks a client on every instance: {@code POST /actuator/ratelimits/blocks} with JSON {@code {"key": "ip",
     * "value": "203.0.113.9", "duration": "30s"}}. Every limited call of the client is refused with 429 and
     * {@code Retry-After} the time left, until the block ends by itself or is lifted. Logged with who made it.
     */
    public OperatorAnswer write(
            String name,
            @Nullable String key,
            @Nullable String value,
            @Nullable String duration,
            @Nullable Principal principal) {
        if (!BLOCKS.equals(name)) {
            return new OperatorAnswer(
                    Map.of("error", "only blocks can be written: POST /actuator/ratelimits/blocks"), 404);
        }
        return writes.block(key, value, duration, principal);
    }

    public Map<String, Object> limits() {
        return limitsAndBlocks();
    }

    private Map<String, Object> limitsAndBlocks() {
        List<Map<String, Object>> limits = new ArrayList<>();
        for (DeclaredLimit declared : declared()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", declared.limit().name());
            if (declared.limit().plan() != null) {
                entry.put("plan", declared.limit().plan());
            }
            entry.put("limit", declared.limit().limit());
            entry.put("windowMs", declared.limit().windowMs());
            entry.put("algorithm", declared.limit().algorithm());
            options(entry, declared.limit());
            entry.put("keys", declared.keys());
            entry.put("shadow", declared.shadow());
            entry.put("failureMode", declared.failureMode().name().toLowerCase(java.util.Locale.ROOT));
            entry.put("source", declared.source());
            limits.add(entry);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("limits", limits);
        answer.put("resetEnabled", resetEnabled);
        answer.put("writeEnabled", writes.writeEnabled());
        ClientBlocks blocked = blocks.get();
        if (blocked != null) {
            Map<String, Long> left = new LinkedHashMap<>();
            blocked.list().forEach((client, time) -> left.put(client, time.toMillis()));
            answer.put("blocks", left);
        }
        if (declared().stream().anyMatch(d -> !d.limit().penalty().isZero())) {
            List<Map<String, Object>> penalties = new ArrayList<>();
            try {
                for (RateLimiter.Penalty penalty : limiter.penalties(MAX_LISTED_PENALTIES)) {
                    penalties.add(Map.of(
                            "limit",
                            penalty.limit(),
                            "client",
                            penalty.client(),
                            "leftMs",
                            penalty.left().toMillis()));
                }
                answer.put("penalties", penalties);
            } catch (RuntimeException e) {
                answer.put("penalties", Map.of("error", "not listed: " + e.getMessage()));
            }
        }
        return answer;
    }

    /**
     * The state of one client under every limit of a name, read without taking anything.
     *
     * @param key the key as the list shows it (an annotation's expression such as {@code #client}, a rule's kind such
     *     as {@code client}, {@code ip} or {@code header:X-Api-Key}, in any case)
     * @param value the value the key had for the client, such as {@code ip:203.0.113.9} for {@code client}
     * @param path the concrete request path, for a rule with {@code per-path: true}
     */
    public OperatorAnswer state(String name, @Nullable String key, @Nullable String value, @Nullable String path) {
        if (LOCKS.equals(name)) {
            return heldLocks(null, null);
        }
        if (key == null && value == null && path == null) {
            return limit(name);
        }
        ClientLimits.Found found;
        try {
            found = clients.find(name, key, value, path);
        } catch (ClientLimits.NotFoundException e) {
            return notFound(e);
        }
        String plan = found.plan();
        List<LimitRequest> probes = found.requests().stream()
                .map(request -> LimitRequest.of(request.limit(), request.identifier(), 0))
                .toList();
        Decision decision = limiter.tryAcquire(probes); // cost 0: reads, takes nothing
        List<Map<String, Object>> states = new ArrayList<>();
        for (LimitOutcome outcome : decision.outcomes()) {
            Map<String, Object> state = new LinkedHashMap<>();
            RateLimit limit = outcome.request().limit();
            state.put("limit", limit.limit());
            state.put("windowMs", limit.windowMs());
            state.put("algorithm", limit.algorithm());
            options(state, limit);
            state.put("remaining", outcome.remaining());
            state.put("resetMs", outcome.resetAfter().toMillis());
            if (limit.period() != null) {
                // a calendar quota: what the client used in the current period, and when it ends (Redis's clock)
                state.put("used", Math.max(0, limit.ceiling() - outcome.remaining()));
                state.put(
                        "periodEnds",
                        io.github.ratelimit.core.Usage.resetsAt(decision, outcome)
                                .toString());
            }
            if (!outcome.allowed()) {
                state.put("penaltyMs", outcome.retryAfter().toMillis()); // only a penalty refuses a probe
            }
            states.add(state);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("name", name);
        if (plan != null) {
            answer.put("plan", plan);
        }
        answer.put("states", states);
        return new OperatorAnswer(answer, 200);
    }

    /** A limit's calendar period, penalty and share, where it has them. */
    private static void options(Map<String, Object> entry, RateLimit limit) {
        if (limit.period() != null) {
            entry.put("period", limit.period().unit().name().toLowerCase(java.util.Locale.ROOT));
            entry.put("zone", limit.period().zone().getId());
        }
        if (!limit.penalty().isZero()) {
            entry.put("penaltyMs", limit.penalty().toMillis());
        }
        if (limit.ceiling() != limit.limit()) {
            entry.put("share", limit.share());
            entry.put("ceiling", limit.ceiling());
        }
        if (limit.leased()) {
            entry.put("lease", limit.lease());
            entry.put("leaseCeiling", limit.leaseCeiling());
        }
    }

    /** A limit name's declared limits, its override if any, and the limits in force. */
    private OperatorAnswer limit(String name) {
        List<DeclaredLimit> named =
                declared().stream().filter(d -> d.limit().name().equals(name)).toList();
        if (named.isEmpty()) {
            return OperatorWrites.error(404, "no limit named '" + name + "'");
        }
        LimitOverrides current = overrides.get();
        LimitOverrides.Change change = current == null ? null : current.get(name);
        List<Map<String, Object>> declaredLimits = new ArrayList<>();
        List<Map<String, Object>> effective = new ArrayList<>();
        for (DeclaredLimit declared : named) {
            declaredLimits.add(describe(declared.limit(), declared.shadow(), declared.source()));
            RateLimit limit = change == null || declared.limit().plan() != null
                    ? declared.limit()
                    : change.applyTo(declared.limit());
            boolean shadow = change != null && change.shadow() != null ? change.shadow() : declared.shadow();
            effective.add(describe(limit, shadow, declared.source()));
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("name", name);
        answer.put("declared", declaredLimits);
        if (change != null) {
            Map<String, Object> override = new LinkedHashMap<>();
            if (change.limit() != null) {
                override.put("limit", change.limit());
            }
            if (change.window() != null) {
                override.put("windowMs", change.window().toMillis());
            }
            if (change.shadow() != null) {
                override.put("shadow", change.shadow());
            }
            answer.put("override", override);
        }
        answer.put("effective", effective);
        return new OperatorAnswer(answer, 200);
    }

    private static Map<String, Object> describe(RateLimit limit, boolean shadow, String source) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("limit", limit.limit());
        entry.put("windowMs", limit.windowMs());
        entry.put("algorithm", limit.algorithm());
        entry.put("shadow", shadow);
        entry.put("source", source);
        return entry;
    }

    /**
     * Forgets what one client was counted under every limit of a name (parameters as for {@link #state}); under the
     * name {@code blocks}, lifts the client's block instead.
     */
    public OperatorAnswer reset(
            String name, String key, String value, @Nullable String path, @Nullable Principal principal) {
        if (BLOCKS.equals(name)) {
            return writes.lift(key, value, principal);
        }
        if (!resetEnabled) {
            return new OperatorAnswer(
                    Map.of("error", "resetting is disabled; set ratelimit.actuator.reset-enabled=true"), 403);
        }
        ClientLimits.Found found;
        try {
            found = clients.find(name, key, value, path);
        } catch (ClientLimits.NotFoundException e) {
            return notFound(e);
        }
        found.declared().forEach(limit -> limiter.reset(limit, found.client()));
        return new OperatorAnswer(Map.of("name", name, "reset", found.declared().size()), 200);
    }

    private static OperatorAnswer notFound(ClientLimits.NotFoundException e) {
        return OperatorWrites.error(e.badRequest() ? 400 : 404, e.getMessage());
    }

    private List<DeclaredLimit> declared() {
        return sources.stream().flatMap(s -> s.declaredLimits().stream()).toList();
    }
}
