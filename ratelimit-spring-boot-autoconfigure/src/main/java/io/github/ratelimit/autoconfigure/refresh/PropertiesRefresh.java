package io.github.ratelimit.autoconfigure.refresh;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.RefreshPart;
import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.refresh.LimitsRefresh;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Rebuilds the limits when Spring Cloud's refresh changes {@code ratelimit.*} (any source: Config Server, Consul, a
 * ConfigMap, a file named by {@code spring.config.import}, then {@code /actuator/refresh} or a reload): the properties
 * are bound and checked afresh, and the engine's {@link LimitsRefresh} compiles the plan groups and every
 * {@link RefreshPart} (path rules, outbound rules, gateway limits, gRPC and GraphQL rules, the customers' plans) against
 * them, putting them in force only when all of it holds. The properties bean is bound anew once they are.
 */
final class PropertiesRefresh implements ApplicationListener<EnvironmentChangeEvent>, Ordered, RateLimitEvents.Source {

    private final LimitsRefresh limits;
    private final Environment environment;
    private final RateLimitProperties live;
    private final Supplier<List<RefreshPart<?>>> parts;

    /**
     * @param limits what puts the refreshed limits in force
     * @param live the properties bean, bound anew once a refresh is in force (what is read on each call: shadow mode,
     *     failure mode, retry advice)
     * @param parts what a refresh rebuilds besides the plan groups
     */
    PropertiesRefresh(
            LimitsRefresh limits,
            Environment environment,
            RateLimitProperties live,
            Supplier<List<RefreshPart<?>>> parts) {
        this.limits = limits;
        this.environment = environment;
        this.live = live;
        this.parts = parts;
    }

    @Override
    public RateLimitEvents events() {
        return limits.events();
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
            limits.refresh(changed, () -> changes(new RefreshPart.Settings(Binder.get(environment))));
        }
    }

    private LimitsRefresh.Changes changes(RefreshPart.Settings settings) {
        RateLimitProperties refreshed = settings.get(RateLimitProperties.class);
        List<RefreshPart<?>> rebuilt = parts.get();
        return new LimitsRefresh.Changes() {
            @Override
            public Map<String, Plans.Group> planGroups() {
                return refreshed.getPlans().compiled();
            }

            @Override
            public List<Runnable> prepare(Plans plans) {
                List<Runnable> commits = new ArrayList<>();
                for (RefreshPart<?> part : rebuilt) {
                    commits.add(part.prepare(settings, plans));
                }
                return commits;
            }

            /** The same object as a part's limits: the declarations a refresh compiles anew. */
            @Override
            public boolean rebuilds(DeclaredLimits source) {
                return rebuilt.stream().anyMatch(part -> part.limits() == source);
            }

            @Override
            public void committed() {
                Binder.get(environment).bind("ratelimit", Bindable.ofInstance(live));
            }
        };
    }
}
