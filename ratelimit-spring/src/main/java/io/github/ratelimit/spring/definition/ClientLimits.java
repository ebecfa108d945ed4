package io.github.ratelimit.spring.definition;

import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One client's limits under one limit name, found as its calls would find them: the one place where an operator's
 * address ({@code ratelimits} endpoint) and an application's ({@code RateLimitUsage}) become limits and an identifier.
 * A name is an annotation's, a rule's, a plan group's or a gateway limit's; the client is the value its key had, under
 * the key the declarations name (which may be left out when they name one).
 */
public final class ClientLimits {

    private final Supplier<List<DeclaredLimit>> declared;
    private final Plans plans;
    private final Supplier<@Nullable LimitOverrides> overrides;

    /**
     * @param declared every limit the application declares, asked on each lookup
     * @param plans the plan groups, to give a client its plan's limits
     * @param overrides operators' overrides of limits by name, or a supplier of null without them
     */
    public ClientLimits(
            Supplier<List<DeclaredLimit>> declared, Plans plans, Supplier<@Nullable LimitOverrides> overrides) {
        this.declared = declared;
        this.plans = plans;
        this.overrides = overrides;
    }

    /** A name or client that is not known: the message says what was wrong and what there is. */
    public static final class NotFoundException extends IllegalArgumentException {

        private final boolean badRequest;

        NotFoundException(String message, boolean badRequest) {
            super(message);
            this.badRequest = badRequest;
        }

        /** Whether the address itself is incomplete (HTTP 400), rather than naming what does not exist (404). */
        public boolean badRequest() {
            return badRequest;
        }
    }

    /**
     * What a client's calls count under a name.
     *
     * @param name the limit name
     * @param client the client as the keys identify it
     * @param declared every limit declared under the name for that key, every plan's for a plan group (what a reset
     *     forgets)
     * @param inForce the limits the client's calls get now: its plan's for a plan group, operators' overrides applied
     * @param plan the client's plan, for a plan group
     */
    public record Found(
            String name,
            ClientIdentifier client,
            List<RateLimit> declared,
            List<RateLimit> inForce,
            @Nullable String plan) {

        /** One request per limit in force, of cost 1 (reads and credits ignore the cost). */
        public List<LimitRequest> requests() {
            List<LimitRequest> requests = new ArrayList<>(inForce.size());
            for (RateLimit limit : inForce) {
                requests.add(LimitRequest.of(limit, client, 1));
            }
            return requests;
        }
    }

    /**
     * The limits of a name for one client.
     *
     * @param name the limit name
     * @param key the key as the declarations name it (an annotation's expression such as {@code #apiKey}, a rule's
     *     kind such as {@code client} or {@code header:X-Api-Key}, in any case); null when they name only one
     * @param value the value the key had for the client
     * @param path the concrete request path, for a rule with {@code per-path: true}
     * @throws NotFoundException naming what was wrong
     */
    public Found find(String name, @Nullable String key, @Nullable String value, @Nullable String path) {
        if (value == null || value.isBlank()) {
            throw new NotFoundException("give the client's value, as its calls' key gives it", true);
        }
        List<DeclaredLimit> named = declared.get().stream()
                .filter(d -> d.limit().name().equals(name))
                .toList();
        if (named.isEmpty()) {
            List<String> names = declared.get().stream()
                    .map(d -> d.limit().name())
                    .distinct()
                    .sorted()
                    .toList();
            throw new NotFoundException(
                    "no limit named '" + Messages.printable(name) + "'; the limits are " + names, false);
        }
        List<String> kinds =
                named.stream().flatMap(d -> d.keys().stream()).distinct().toList();
        String kind;
        if (key == null || key.isBlank()) {
            if (kinds.size() != 1) {
                throw new NotFoundException(
                        "limit '" + name + "' has the keys " + kinds + ": give the key as well as the value", true);
            }
            kind = kinds.get(0);
        } else {
            kind = ClientIdentifier.normalizeKind(key);
        }
        List<DeclaredLimit> matching =
                named.stream().filter(d -> d.keys().contains(kind)).toList();
        if (matching.isEmpty()) {
            throw new NotFoundException("limit '" + name + "' has no key " + kind + "; its keys are " + kinds, false);
        }
        boolean perPath = matching.stream().anyMatch(DeclaredLimit::perPath);
        if (perPath && (path == null || path.isBlank())) {
            throw new NotFoundException(
                    "limit '" + name + "' counts each path apart: give the request path as path", true);
        }
        ClientIdentifier client = ClientIdentifier.of(kind, value);
        if (perPath) {
            client = client.perPath(Objects.requireNonNull(path));
        }
        List<RateLimit> limits =
                matching.stream().map(DeclaredLimit::limit).distinct().toList();
        if (limits.get(0).plan() != null) {
            Plans.Resolved resolved = plans.resolve(name, null, value);
            return new Found(name, client, limits, resolved.limits(), resolved.plan());
        }
        LimitOverrides current = overrides.get();
        LimitOverrides.Change change = current == null ? null : current.get(name);
        List<RateLimit> inForce = change == null
                ? limits
                : limits.stream().map(change::applyTo).distinct().toList();
        return new Found(name, client, limits, inForce, null);
    }
}
