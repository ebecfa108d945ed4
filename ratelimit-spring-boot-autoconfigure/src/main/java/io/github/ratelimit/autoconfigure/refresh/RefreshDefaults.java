package io.github.ratelimit.autoconfigure.refresh;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Keeps Spring Cloud's rebinding of {@code @ConfigurationProperties} beans off {@code RateLimitProperties} (with
 * Spring Cloud's own default, Hikari's data source): {@link PropertiesRefresh} binds them once the refreshed limits are
 * checked, where a rebinding that fails would leave them at their defaults. A default only: an application that sets
 * {@code spring.cloud.refresh.never-refreshable} itself lists the class there too.
 */
final class RefreshDefaults implements EnvironmentPostProcessor {

    static final String PROPERTY = "spring.cloud.refresh.never-refreshable";

    static final String NEVER_REFRESHABLE =
            "com.zaxxer.hikari.HikariDataSource,io.github.ratelimit.autoconfigure.RateLimitProperties";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (!environment.getPropertySources().contains("ratelimitRefreshDefaults")) {
            environment
                    .getPropertySources()
                    .addLast(new MapPropertySource("ratelimitRefreshDefaults", Map.of(PROPERTY, NEVER_REFRESHABLE)));
        }
    }
}
