package io.github.ratelimit.spring.refresh;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.spring.definition.Plans;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts changed limits in force without a restart, as a whole or not at all: the plan groups and every part (path
 * rules, gateway limits, the customers' plans) are compiled first, against each other, and only when all of it holds
 * are they put in force, for the next call. What was counted carries over: counts belong to a limit's name, algorithm
 * and window, not to its quota. A change that is not valid is refused as a whole: the limits in force stay, one ERROR
 * names what was wrong, and it is told to the listeners ({@code refresh_rejected}). Where the changed limits come
 * from is the caller's (the auto-configuration binds {@code ratelimit.*} after Spring Cloud's refresh).
 */
public final class LimitsRefresh implements RateLimitEvents.Source {

    private static final Logger log = LoggerFactory.getLogger(LimitsRefresh.class);

    /** One refresh's limits, read but not yet compiled. */
    public interface Changes {

        /**
         * The refreshed plan groups.
         *
         * @throws RuntimeException naming the property of the first invalid value
         */
        Map<String, Plans.Group> planGroups();

        /**
         * Compiles every other part against the refreshed plans, changing nothing in force.
         *
         * @return what puts each part in force
         * @throws RuntimeException naming the property of the first invalid value
         */
        List<Runnable> prepare(Plans plans);

        /** Whether a source of declared limits is rebuilt by this refresh (else the plan groups it names must stay). */
        boolean rebuilds(DeclaredLimits source);

        /** Runs once everything compiled is in force. */
        void committed();
    }

    private final RateLimitEvents events = new RateLimitEvents();
    private final @Nullable Plans plans;
    private final Supplier<List<DeclaredLimits>> declared;
    private final Supplier<@Nullable RateLimiter> limiter;

    /**
     * @param plans the plan groups, or null without them
     * @param declared every declaration, to check that the plan groups annotations name are still there
     * @param limiter whose refusals kept in memory are forgotten once new limits are in force
     */
    public LimitsRefresh(
            @Nullable Plans plans, Supplier<List<DeclaredLimits>> declared, Supplier<@Nullable RateLimiter> limiter) {
        this.plans = plans;
        this.declared = declared;
        this.limiter = limiter;
    }

    @Override
    public RateLimitEvents events() {
        return events;
    }

    /**
     * Puts the changed limits in force.
     *
     * @param changed the names of what changed, for the log
     * @param read reads the changes; what it throws refuses them as any invalid value does
     * @return whether they are in force (false: refused, logged)
     */
    public synchronized boolean refresh(Set<String> changed, Supplier<Changes> read) {
        List<Runnable> commits;
        Plans refreshedPlans;
        Changes changes;
        try {
            changes = read.get();
            refreshedPlans = plans == null ? Plans.NONE : plans.withGroups(changes.planGroups());
            checkPlanGroupsInUse(refreshedPlans, changes);
            commits = changes.prepare(refreshedPlans);
        } catch (RuntimeException e) {
            events.operatorChanged("refresh_rejected", "ratelimit");
            log.error(
                    "The changed rate limit properties {} were refused as a whole; the limits in force stay: {}",
                    changed,
                    e.getMessage());
            return false;
        }
        if (plans != null) {
            plans.replaceGroups(refreshedPlans);
        }
        commits.forEach(Runnable::run);
        changes.committed();
        RateLimiter current = limiter.get();
        if (current != null) {
            current.quotasChanged(); // a refusal kept in memory may stand for a quota that grew
        }
        events.operatorChanged("refresh", "ratelimit");
        log.info(
                "Rate limits refreshed from the changed properties {}: plans, path rules and gateway limits rebuilt"
                        + " ({} parts); what was counted carries over where a limit's window stays the same",
                changed,
                commits.size());
        return true;
    }

    /** Annotations are compiled once: the plan groups they name must stay. */
    private void checkPlanGroupsInUse(Plans refreshedPlans, Changes changes) {
        for (DeclaredLimits source : declared.get()) {
            if (changes.rebuilds(source)) {
                continue;
            }
            for (DeclaredLimit limit : source.declaredLimits()) {
                if (limit.limit().plan() != null) {
                    try {
                        refreshedPlans.group(limit.limit().name());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(e.getMessage() + ", which " + limit.source() + " names");
                    }
                }
            }
        }
    }
}
