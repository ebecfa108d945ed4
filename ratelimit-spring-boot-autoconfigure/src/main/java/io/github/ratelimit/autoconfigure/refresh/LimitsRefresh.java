package io.github.ratelimit.autoconfigure.refresh;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.definition.DeclaredLimits;
import io.github.ratelimit.autoconfigure.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.autoconfigure.definition.Plans;
import io.github.ratelimit.autoconfigure.definition.RefreshableLimits;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.validation.BeanPropertyBindingResult;
import org.springframework.validation.FieldError;

/**
 * Rebuilds the limits when Spring Cloud's refresh changes {@code ratelimit.*} (any source: Config Server, Consul, a
 * ConfigMap, a file named by {@code spring.config.import}, then {@code /actuator/refresh} or a reload): the properties
 * are bound and checked afresh, the plan groups and every {@link RefreshableLimits} (path rules, gateway limits, the
 * customers' plans) compiled against them, and only when all of it holds is it put in force, for the next call. What
 * was counted carries over: counts belong to a limit's name, algorithm and window, not to its quota. A change that is
 * not valid is refused as a whole: the limits in force stay, one ERROR names what was wrong, and it is counted
 * ({@code ratelimit.operator.changes{action=refresh_rejected}}).
 */
final class LimitsRefresh implements ApplicationListener<EnvironmentChangeEvent>, Ordered, RateLimitEvents.Source {

    private static final Logger log = LoggerFactory.getLogger(LimitsRefresh.class);

    private final RateLimitEvents events = new RateLimitEvents();
    private final Environment environment;
    private final RateLimitProperties live;
    private final @Nullable Plans plans;
    private final Supplier<List<RefreshableLimits>> parts;
    private final Supplier<List<DeclaredLimits>> declared;
    private final Supplier<@Nullable RateLimiter> limiter;

    /**
     * @param live the properties bean, bound anew once a refresh is in force (what is read on each call: shadow mode,
     *     failure mode, retry advice)
     * @param plans the plan groups, or null without them
     * @param parts what else a refresh rebuilds
     * @param declared every declaration, to check that the plan groups annotations name are still there
     * @param limiter whose refusals kept in memory are forgotten once new limits are in force
     */
    LimitsRefresh(
            Environment environment,
            RateLimitProperties live,
            @Nullable Plans plans,
            Supplier<List<RefreshableLimits>> parts,
            Supplier<List<DeclaredLimits>> declared,
            Supplier<@Nullable RateLimiter> limiter) {
        this.environment = environment;
        this.live = live;
        this.plans = plans;
        this.parts = parts;
        this.declared = declared;
        this.limiter = limiter;
    }

    @Override
    public RateLimitEvents events() {
        return events;
    }

    /** Before Spring Cloud rebinds other beans, so that nothing reads new limits before they are in force. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public void onApplicationEvent(EnvironmentChangeEvent event) {
        Set<String> changed = new TreeSet<>();
        for (String key : event.getKeys()) {
            if (key.startsWith("ratelimit.")) {
                changed.add(key);
            }
        }
        if (!changed.isEmpty()) {
            refresh(changed);
        }
    }

    /** Puts the limits of the environment's properties in force; whether it did (false: refused, logged). */
    synchronized boolean refresh(Set<String> changed) {
        List<Runnable> commits = new ArrayList<>();
        Plans refreshedPlans;
        RateLimitProperties refreshed;
        try {
            refreshed = bind();
            refreshedPlans = plans == null
                    ? Plans.NONE
                    : plans.withGroups(refreshed.getPlans().compiled());
            checkPlanGroupsInUse(refreshedPlans);
            for (RefreshableLimits part : parts.get()) {
                commits.add(part.prepare(refreshed, refreshedPlans));
            }
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
        Binder.get(environment).bind("ratelimit", Bindable.ofInstance(live));
        RateLimiter current = limiter.get();
        if (current != null) {
            current.forgetLocalState(); // a refusal kept in memory may stand for a quota that grew
        }
        events.operatorChanged("refresh", "ratelimit");
        log.info(
                "Rate limits refreshed from the changed properties {}: plans, path rules and gateway limits rebuilt"
                        + " ({} parts); what was counted carries over where a limit's window stays the same",
                changed,
                commits.size());
        return true;
    }

    /** The properties as the environment has them now, checked as at startup; an exception names what is wrong. */
    private RateLimitProperties bind() {
        RateLimitProperties refreshed = Binder.get(environment).bindOrCreate("ratelimit", RateLimitProperties.class);
        BeanPropertyBindingResult errors = new BeanPropertyBindingResult(refreshed, "ratelimit");
        refreshed.validate(refreshed, errors);
        if (errors.hasErrors()) {
            List<String> wrong = new ArrayList<>();
            for (FieldError error : errors.getFieldErrors()) {
                wrong.add("ratelimit." + error.getField() + ": " + error.getDefaultMessage());
            }
            errors.getGlobalErrors().forEach(error -> wrong.add(String.valueOf(error.getDefaultMessage())));
            throw new IllegalArgumentException(String.join("; ", wrong));
        }
        return refreshed;
    }

    /** Annotations are compiled once: the plan groups they name must stay. */
    private void checkPlanGroupsInUse(Plans refreshedPlans) {
        for (DeclaredLimits source : declared.get()) {
            if (source instanceof RefreshableLimits) {
                continue; // rebuilt with the refresh
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
