package io.github.ratelimit.spring.definition;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.spring.definition.internal.RuleParts;
import io.github.ratelimit.spring.definition.internal.RuleSlots;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The rules of {@code ratelimit.filter.rules}, compiled once, and what they ask of one request: the one owner of rule
 * matching for the servlet filter and the reactive web filter.
 */
public final class PathRules {

    private final List<FilterRule> rules;
    private final List<PathPattern> excluded;
    /** Whether any rule has a concurrency limit: without one, {@link #slots} matches nothing again. */
    private final boolean slotted;

    private final Plans plans;

    /**
     * @param rules the rules; each is checked now and fails with {@link InvalidFilterRuleException}
     * @param excludedPaths path patterns no rule applies to
     * @param plans the plan groups rules may name
     * @param keys the kinds of key rules may name
     */
    public PathRules(List<FilterRuleSpec> rules, List<String> excludedPaths, Plans plans, KeyResolvers keys) {
        this(rules, "ratelimit.filter.rules", excludedPaths, plans, keys);
    }

    /**
     * Rules of an integration whose calls are not HTTP requests, named in its protocol's own words (gRPC methods such
     * as {@code pkg.Service/Method}, GraphQL operations such as {@code query/*}), from another property than {@code
     * ratelimit.filter.rules}, which their errors name ({@code property[i]}); without exclusions, and without HTTP
     * methods (a rule that lists some fails here, naming them). Such rules are asked with {@link #call(String,
     * CallerContext, RateLimitDecisions, long)}.
     */
    public PathRules(List<FilterRuleSpec> rules, String property, Plans plans, KeyResolvers keys) {
        this(rooted(withoutMethods(rules, property)), property, List.of(), plans, keys);
    }

    private static List<FilterRuleSpec> withoutMethods(List<FilterRuleSpec> rules, String property) {
        for (int i = 0; i < rules.size(); i++) {
            if (rules.get(i).concurrency() != null) {
                throw new InvalidFilterRuleException(
                        property + "[" + i + "].concurrency",
                        "is not taken on these calls yet (only by the servlet and WebFlux path rules,"
                                + " ratelimit.filter.rules)");
            }
            List<String> methods = rules.get(i).methods();
            if (methods != null && !methods.isEmpty()) {
                throw new InvalidFilterRuleException(
                        property + "[" + i + "].methods",
                        "must be left out: the calls these rules match have no HTTP method, but it was " + methods);
            }
        }
        return rules;
    }

    /** The rules with a {@code /} before each pattern that has none. */
    private static List<FilterRuleSpec> rooted(List<FilterRuleSpec> rules) {
        return rules.stream()
                .map(rule -> rule.paths() == null
                        ? rule
                        : rule.withPaths(rule.paths().stream()
                                .map(p -> p == null || p.startsWith("/") ? p : "/" + p)
                                .toList()))
                .toList();
    }

    private PathRules(
            List<FilterRuleSpec> rules, String property, List<String> excludedPaths, Plans plans, KeyResolvers keys) {
        this.plans = plans;
        List<FilterRule> compiled = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            compiled.add(FilterRule.compile(rules.get(i), i, property + "[" + i + "]", plans, keys));
        }
        compiled.sort(Comparator.comparingInt((FilterRule r) -> r.order).thenComparingInt(r -> r.index));
        this.rules = List.copyOf(compiled);
        this.excluded = RuleParts.patterns(excludedPaths, "ratelimit.filter.exclude");
        this.slotted = compiled.stream().anyMatch(rule -> rule.concurrency != null);
    }

    /**
     * The rules a path-rule filter takes: the rules, and the path patterns no rule applies to.
     *
     * @param rules the rules; each is checked when compiled and fails with {@link InvalidFilterRuleException}
     * @param excludedPaths path patterns no rule applies to
     */
    public record Specs(List<FilterRuleSpec> rules, List<String> excludedPaths) {
        public Specs {
            rules = List.copyOf(rules);
            excludedPaths = List.copyOf(excludedPaths);
        }
    }

    /** A filter that applies rules: the limits it declares are its rules', and a refresh compiles it new ones. */
    public interface Applied extends DeclaredLimits, RefreshableLimits<Specs> {
        /** The rules in force. */
        PathRules pathRules();

        @Override
        default List<DeclaredLimit> declaredLimits() {
            return pathRules().declaredLimits();
        }
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /**
     * The rules that apply to an operation as an API description names it: its method and its path template
     * ({@code /api/items/{id}}). A rule applies when one of its patterns matches the template as written or with
     * each variable taken as one path segment; excluded paths are left out alike.
     */
    public List<LimitDefinition> definitionsFor(String method, String pathTemplate) {
        List<PathContainer> paths = List.of(
                PathContainer.parsePath(pathTemplate),
                PathContainer.parsePath(pathTemplate.replaceAll("\\{[^/}]*}", "1")));
        if (paths.stream().anyMatch(path -> excluded.stream().anyMatch(p -> p.matches(path)))) {
            return List.of();
        }
        List<LimitDefinition> found = new ArrayList<>();
        for (FilterRule rule : rules) {
            if (paths.stream().anyMatch(path -> rule.matches(method, path))) {
                found.add(rule.definition);
            }
        }
        return found;
    }

    /** The limits of every rule. */
    public List<DeclaredLimit> declaredLimits() {
        List<DeclaredLimit> all = new ArrayList<>();
        for (FilterRule rule : rules) {
            all.addAll(rule.definition.declared());
        }
        return all;
    }

    /**
     * What the rules matching one request ask of the decision flow, or null when none matches (or the path is
     * excluded). The flow asks only for callers that are not exempt.
     *
     * @param method the HTTP method
     * @param rawPath the path within the application, as counted per path
     * @param path the same, parsed
     * @throws RateLimitEvaluationException when a matching rule's key is absent from the request (answered 400)
     */
    public RateLimitDecisions.@Nullable Call call(
            String method, String rawPath, PathContainer path, CallerContext view, RateLimitDecisions decisions) {
        return matching(method, rawPath, path, view, decisions, 1);
    }

    /**
     * What the rules matching one call of another protocol ask, the call named as that protocol names it (a gRPC
     * method, {@code package.Service/Method}; a GraphQL operation, {@code query/Name}), for {@code units} units: each
     * rule takes its cost that many times (a GraphQL operation's fields). Null when no rule matches the name.
     *
     * @throws RateLimitEvaluationException when a matching rule's key is absent from the call
     */
    public RateLimitDecisions.@Nullable Call call(
            String name, CallerContext view, RateLimitDecisions decisions, long units) {
        String path = "/" + name;
        return matching(null, path, PathContainer.parsePath(path), view, decisions, units);
    }

    private RateLimitDecisions.@Nullable Call matching(
            @Nullable String method,
            String rawPath,
            PathContainer path,
            CallerContext view,
            RateLimitDecisions decisions,
            long units) {
        if (rules.isEmpty() || excluded.stream().anyMatch(p -> p.matches(path))) {
            return null;
        }
        RuleCall call = new RuleCall(plans, rawPath, view, decisions, units);
        for (FilterRule rule : rules) {
            if (rule.matches(method, path)) {
                call.add(rule);
            }
        }
        return call.build("rules");
    }

    /**
     * The concurrency limits of the rules matching one request, in the rules' order; empty when none has one (or the
     * path is excluded). Their slots are taken once the decision admitted the request.
     */
    public List<RuleSlots.Limit> slots(String method, PathContainer path) {
        if (!slotted || excluded.stream().anyMatch(p -> p.matches(path))) {
            return List.of();
        }
        List<RuleSlots.Limit> slots = null;
        for (FilterRule rule : rules) {
            if (rule.concurrency != null && rule.matches(method, path)) {
                if (slots == null) {
                    slots = new ArrayList<>(1);
                }
                slots.add(rule.concurrency);
            }
        }
        return slots == null ? List.of() : slots;
    }

    /**
     * The caller of one request as the rules read it, from functions: the principal and the client address are asked
     * at most once per request, whatever the number of rules and keys that read them; a decision that admitted it is
     * told to {@code allowed} (its RateLimit fields).
     */
    public static CallerContext view(
            Object request,
            Function<String, String> header,
            Supplier<String> principal,
            Supplier<String> client,
            Consumer<Decision> allowed) {
        return new CallerContext() {
            private @Nullable String principalName;
            private @Nullable String clientAddress;
            private boolean principalRead;

            @Override
            public @Nullable Object request() {
                return request;
            }

            @Override
            public @Nullable String header(String name) {
                return header.apply(name);
            }

            @Override
            public @Nullable String principalName() {
                if (!principalRead) {
                    principalName = principal.get();
                    principalRead = true;
                }
                return principalName;
            }

            @Override
            public @Nullable String clientAddress() {
                if (clientAddress == null) {
                    clientAddress = client.get();
                }
                return clientAddress;
            }

            @Override
            public void allowed(Decision decision) {
                allowed.accept(decision);
            }
        };
    }
}
