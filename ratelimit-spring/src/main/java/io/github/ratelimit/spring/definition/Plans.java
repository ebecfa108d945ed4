package io.github.ratelimit.spring.definition;

import io.github.ratelimit.core.PlanSource;
import io.github.ratelimit.core.PlanSource.Quota;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plan groups of {@code ratelimit.plans.groups} and the one place where a caller's plan and limits are resolved,
 * for annotations and path rules alike: the plan named by an expression, else by the {@link PlanSource}, else the
 * group's default plan; the limits of the source for that customer, else the plan's own. Whatever goes wrong at run
 * time (an unknown plan, invalid limits, an exception of the source) gives the default plan's limits, logged once per
 * group and reason and counted, never an unlimited caller.
 */
public final class Plans {

    private static final Logger log = LoggerFactory.getLogger(Plans.class);

    /** No plan groups. */
    public static final Plans NONE = new Plans(Map.of(), () -> null);

    /** One plan group: its default plan and each plan's limits (plan limits of the group, see {@link RateLimit}). */
    public record Group(String name, String defaultPlan, Map<String, List<RateLimit>> plans) {

        public Group {
            plans = Map.copyOf(plans);
            if (!plans.containsKey(defaultPlan)) {
                throw new IllegalArgumentException("ratelimit.plans.groups." + name + ".default-plan is '" + defaultPlan
                        + "', which is not a plan of the group " + plans.keySet());
            }
            plans.forEach((plan, limits) -> {
                if (limits.isEmpty()) {
                    throw new IllegalArgumentException("ratelimit.plans.groups." + name + ".plans." + plan
                            + " has no limits; a plan needs at least"
                            + " one (an unlimited plan would be a mistake waiting to happen)");
                }
            });
        }
    }

    /** Why a call fell back to the default plan, as counted. */
    public enum Fallback {
        /** The plan expression failed or gave something other than a string. */
        EXPRESSION,
        /** The plan source threw. */
        SOURCE,
        /** The plan named is not one of the group. */
        UNKNOWN_PLAN,
        /** The source's limits for the customer were not valid. */
        INVALID_LIMITS
    }

    private volatile Map<String, Group> groups;
    private final Supplier<PlanSource> source;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private volatile BiConsumer<String, Fallback> onFallback = (group, reason) -> {};

    /**
     * @param groups the plan groups by name
     * @param source the plan source, asked on each call; may supply null (every caller on the default plan)
     */
    public Plans(Map<String, Group> groups, Supplier<PlanSource> source) {
        this.groups = Map.copyOf(groups);
        this.source = source;
    }

    /**
     * The same plans with other groups (checked as the constructor checks them), sharing this one's source and
     * fallback listener: what a refresh of the properties compiles rules against before it puts them in force.
     */
    public Plans withGroups(Map<String, Group> groups) {
        Plans plans = new Plans(groups, source);
        plans.onFallback = onFallback;
        return plans;
    }

    /** Puts the groups of {@code refreshed} (made by {@link #withGroups}) in force here, for the next call. */
    public void replaceGroups(Plans refreshed) {
        this.groups = refreshed.groups;
    }

    /** Called with every fallback to a default plan (the metrics count them). */
    public void onFallback(BiConsumer<String, Fallback> listener) {
        this.onFallback = listener;
    }

    /** The group, or an {@link IllegalArgumentException} naming the known ones. */
    public Group group(String name) {
        Group group = groups.get(name);
        if (group == null) {
            throw new IllegalArgumentException("plan group '" + name + "' is not configured"
                    + (groups.isEmpty()
                            ? " (there are no ratelimit.plans.groups)"
                            : "; ratelimit.plans.groups has " + groups.keySet()));
        }
        return group;
    }

    public Map<String, Group> groups() {
        return groups;
    }

    /** A caller's plan and the limits it gets. */
    public record Resolved(String plan, List<RateLimit> limits) {}

    /**
     * Resolves one call's plan and limits.
     *
     * @param group a configured group
     * @param named the plan an expression named, or null to ask the source
     * @param customer the caller's identifier value
     */
    public Resolved resolve(String group, @Nullable String named, @Nullable String customer) {
        Group plans = group(group);
        String plan = named;
        if (plan == null) {
            PlanSource planSource = source.get();
            try {
                plan = planSource == null ? null : planSource.planOf(group, customer);
            } catch (RuntimeException e) {
                return fallBack(plans, Fallback.SOURCE, "the plan source failed: " + e);
            }
        }
        if (plan == null) {
            return new Resolved(
                    plans.defaultPlan(),
                    java.util.Objects.requireNonNull(plans.plans().get(plans.defaultPlan())));
        }
        List<RateLimit> configured = plans.plans().get(plan);
        if (configured == null) {
            return fallBack(
                    plans,
                    Fallback.UNKNOWN_PLAN,
                    "plan '" + Messages.printable(plan) + "' is not one of "
                            + plans.plans().keySet());
        }
        PlanSource planSource = source.get();
        List<io.github.ratelimit.core.PlanSource.Quota> own;
        try {
            own = planSource == null ? null : planSource.limitsOf(group, plan, customer);
        } catch (RuntimeException e) {
            return fallBack(plans, Fallback.SOURCE, "the plan source failed: " + e);
        }
        if (own == null) {
            return new Resolved(plan, configured);
        }
        List<RateLimit> limits = new ArrayList<>(own.size());
        try {
            for (Quota quota : own) {
                limits.add(quota.in(group, plan));
            }
        } catch (RuntimeException e) {
            return fallBack(
                    plans, Fallback.INVALID_LIMITS, "the plan source's limits are not valid: " + e.getMessage());
        }
        if (limits.isEmpty()) {
            return fallBack(plans, Fallback.INVALID_LIMITS, "the plan source gave no limits");
        }
        return new Resolved(plan, limits);
    }

    /**
     * Resolves one call's plan and limits, for annotations and rules alike: the plan the call's plan expression names,
     * else the source's, else the default; an expression that fails or names no plan gives the default plan.
     *
     * @param group a configured group
     * @param planExpression evaluates the call's plan expression, or null when it has none: a non-blank string names
     *     the plan, null asks the source, anything else (or an exception) falls back to the default plan
     * @param owner what declares the expression, for the log (a method, a rule)
     * @param customer the caller's identifier value
     */
    public Resolved resolve(
            String group, @Nullable Supplier<Object> planExpression, String owner, @Nullable String customer) {
        String named = null;
        if (planExpression != null) {
            Object value;
            try {
                value = planExpression.get();
            } catch (RuntimeException e) {
                return fallBack(
                        group(group),
                        Fallback.EXPRESSION,
                        "the plan expression of " + owner + " failed: " + e.getMessage());
            }
            if (value instanceof String text && !text.isBlank()) {
                named = text;
            } else if (value != null) {
                return fallBack(
                        group(group),
                        Fallback.EXPRESSION,
                        "the plan expression of " + owner + " gave a "
                                + value.getClass().getSimpleName() + ", not a plan name");
            }
        }
        return resolve(group, named, customer);
    }

    private Resolved fallBack(Group group, Fallback reason, String why) {
        onFallback.accept(group.name(), reason);
        if (logged.add(group.name() + '|' + reason)) {
            log.warn(
                    "Plan group '{}': {}; the caller gets the default plan '{}' (logged once per group and reason,"
                            + " counted in ratelimit.plans.fallbacks)",
                    group.name(),
                    why,
                    group.defaultPlan());
        }
        return new Resolved(
                group.defaultPlan(),
                java.util.Objects.requireNonNull(group.plans().get(group.defaultPlan())));
    }

    /**
     * Plan groups from their specifications, as properties give them.
     *
     * @param specs each group's plans by name, each plan's limits
     * @param defaults each group's default plan
     * @param property where the groups were given, to name the first invalid value
     * @return the groups by name
     * @throws IllegalArgumentException naming the property of the first invalid value
     */
    public static Map<String, Group> compile(
            Map<String, Map<String, List<FilterRuleSpec.LimitSpec>>> specs,
            Map<String, String> defaults,
            String property) {
        Map<String, Map<String, List<Quota>>> quotas = new LinkedHashMap<>();
        specs.forEach((name, group) -> {
            Map<String, List<Quota>> plans = new LinkedHashMap<>();
            group.forEach((plan, limits) -> {
                List<Quota> planQuotas = new ArrayList<>();
                for (int i = 0; i < limits.size(); i++) {
                    FilterRuleSpec.LimitSpec l = limits.get(i);
                    try {
                        if (l.lease() != null) {
                            throw new IllegalArgumentException("a plan's quota cannot be leased (its counts follow"
                                    + " the caller's plan); leave out lease");
                        }
                        planQuotas.add(new Quota(
                                l.limit(),
                                l.window() == null ? Duration.ZERO : l.window(),
                                l.algorithm(),
                                l.calendarPeriod(),
                                l.penalty() == null ? Duration.ZERO : l.penalty(),
                                l.share() == null ? 1.0 : l.share()));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(
                                property + "." + name + ".plans." + plan + "[" + i + "]: " + e.getMessage(), e);
                    }
                }
                plans.put(plan, planQuotas);
            });
            quotas.put(name, plans);
        });
        return Plans.groups(quotas, defaults);
    }

    /** Groups from bound properties: each plan's limits made into plan limits of the group. */
    public static Map<String, Group> groups(
            Map<String, Map<String, List<Quota>>> plansByGroup, Map<String, String> defaults) {
        Map<String, Group> groups = new LinkedHashMap<>();
        plansByGroup.forEach((group, plans) -> {
            Map<String, List<RateLimit>> limits = new LinkedHashMap<>();
            plans.forEach((plan, quotas) -> {
                List<RateLimit> list = new ArrayList<>();
                for (int i = 0; i < quotas.size(); i++) {
                    try {
                        list.add(quotas.get(i).in(group, plan));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(
                                "ratelimit.plans.groups." + group + ".plans." + plan + "[" + i + "]: " + e.getMessage(),
                                e);
                    }
                }
                limits.put(plan, list);
            });
            groups.put(group, new Group(group, defaults.getOrDefault(group, "default"), limits));
        });
        return groups;
    }
}
