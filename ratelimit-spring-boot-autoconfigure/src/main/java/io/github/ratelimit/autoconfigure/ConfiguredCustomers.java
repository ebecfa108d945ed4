package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.core.PlanSource;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.RefreshableLimits;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The plans of {@code ratelimit.plans.customers}, the starter's {@link PlanSource}; a refresh replaces them. */
final class ConfiguredCustomers implements PlanSource, RefreshableLimits<Map<String, String>> {

    private volatile Map<String, String> customers;

    ConfiguredCustomers(Map<String, String> customers) {
        this.customers = Map.copyOf(customers);
    }

    @Override
    public @Nullable String planOf(String group, @Nullable String customer) {
        return customer == null ? null : customers.get(customer);
    }

    @Override
    public Runnable prepare(Map<String, String> refreshedCustomers, Plans plans) {
        Map<String, String> refreshed = Map.copyOf(refreshedCustomers);
        return () -> customers = refreshed;
    }
}
