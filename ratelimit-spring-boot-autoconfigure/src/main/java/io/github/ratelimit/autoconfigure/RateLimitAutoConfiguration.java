package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ConcurrencyLimiter;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.KeyResolver;
import io.github.ratelimit.core.LockManager;
import io.github.ratelimit.core.PlanSource;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.SingleUseTokens;
import io.github.ratelimit.decision.Exemptions;
import io.github.ratelimit.decision.Fallbacks;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.redis.RedisBlocks;
import io.github.ratelimit.redis.RedisConcurrencyLimiter;
import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.RedisInstances;
import io.github.ratelimit.redis.RedisLockManager;
import io.github.ratelimit.redis.RedisOverrides;
import io.github.ratelimit.redis.RedisRateLimiter;
import io.github.ratelimit.redis.RedisSingleUseTokens;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import org.redisson.api.RedissonClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The Redis guard and connector, single-use tokens and locks with the interception of {@code @SingleUse} and
 * {@code @Locked} methods, and, unless {@code ratelimit.enabled=false}, the rate limiter with the interception of
 * {@code @RateLimited} methods. With rate limits off, a {@link RateLimiter} that admits every call stands in, so
 * that nothing an application injects goes missing; tokens and locks are never switched off with them.
 */
@AutoConfiguration(after = RateLimitRedissonAutoConfiguration.class)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

    /** Pause between attempts to make the first connection. */
    static final Duration CONNECT_RETRY = Duration.ofSeconds(1);

    /** How often each instance announces itself in Redis (an announcement lasts three times as long). */
    static final Duration ANNOUNCE_EVERY = Duration.ofSeconds(2);

    @Bean
    RedisGuard rateLimitRedisGuard(RateLimitProperties properties, ObjectProvider<RedissonClient> redisson) {
        RateLimitProperties.Redis redis = properties.getRedis();
        RedissonClient client = redisson.getIfAvailable();
        String target = client == null ? "(none)" : StartupSummary.topology(client);
        return RedisGuard.awaitingConnection(
                target, redis.getTimeout(), redis.getFailureThreshold(), redis.getOpenFor());
    }

    /** The longest the start waits for the first attempt to connect, unless Redis is required at startup. */
    static final Duration STARTUP_WAIT = Duration.ofSeconds(1);

    /**
     * Connects in the background and waits for the first attempt at most {@link #STARTUP_WAIT} (Redis refused, an
     * unknown host or a wrong password fail the attempt at once), so that an application whose Redis is up decides
     * from its first request. With require-at-startup it waits up to connect-timeout, and a failed attempt fails the
     * start.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnBean(RedissonClient.class)
    RedisConnector rateLimitRedisConnector(
            RedissonClient redisson, RedisGuard guard, RateLimitProperties properties, Environment environment) {
        Duration connectTimeout = connectTimeout(properties, environment);
        RedisConnector connector = new RedisConnector(
                redisson, guard, connectTimeout, CONNECT_RETRY, List.of(new RedisMemoryPolicyCheck()));
        connector.start();
        boolean required = properties.getRedis().isRequireAtStartup();
        Throwable failure = connector.awaitFirstAttempt(
                required || connectTimeout.compareTo(STARTUP_WAIT) < 0 ? connectTimeout : STARTUP_WAIT);
        if (failure != null && required) {
            connector.close();
            String reason = guard.lastError() != null ? guard.lastError() : String.valueOf(failure.getMessage());
            throw new RedisNotReachableException(guard.target(), reason, failure);
        }
        return connector;
    }

    static Duration connectTimeout(RateLimitProperties properties, Environment environment) {
        return RedisConnectionSettings.connectTimeout(
                properties.getRedis().getConnectTimeout(),
                Binder.get(environment)
                        .bind("spring.data.redis.connect-timeout", Duration.class)
                        .orElse(null));
    }

    @Bean
    @ConditionalOnMissingBean(SingleUseTokens.class)
    RedisSingleUseTokens singleUseTokens(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisSingleUseTokens(
                redisson,
                properties.getKeyPrefix(),
                guard,
                properties.getDurability().waitFor(properties.getDurability().isTokens(), guard.budget()));
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static SingleUseAdvisor singleUseAdvisor(
            ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        return new SingleUseAdvisor(tokens, caller);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockManager.class)
    RedisLockManager lockManager(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisLockManager(
                redisson,
                properties.getKeyPrefix(),
                guard,
                properties.getDurability().waitFor(properties.getDurability().isLocks(), guard.budget()));
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(ConcurrencyLimiter.class)
    RedisConcurrencyLimiter concurrencyLimiter(
            RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
        return new RedisConcurrencyLimiter(redisson, properties.getKeyPrefix(), guard);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static ConcurrencyLimitedAdvisor concurrencyLimitedAdvisor(
            ObjectProvider<ConcurrencyLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys) {
        return new ConcurrencyLimitedAdvisor(limiter, caller, keys);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static LockedAdvisor lockedAdvisor(
            ObjectProvider<LockManager> locks,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys) {
        return new LockedAdvisor(locks, caller, keys);
    }

    /** Adds the listener beans (metrics, observations, the application's) to each bean that publishes events. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitListeners rateLimitListeners(ObjectProvider<RateLimitListener> listeners) {
        return new RateLimitListeners(listeners);
    }

    /** The kinds of key annotations and rules may name: the built-in ones and the application's resolver beans. */
    @Bean
    KeyResolvers rateLimitKeyResolvers(ListableBeanFactory beans) {
        return new KeyResolvers(beans.getBeansOfType(KeyResolver.class));
    }

    @Bean
    StartupSummary rateLimitStartupSummary(
            ObjectProvider<DeclaredLimits> sources, ObjectProvider<RedisGuard> guard, RateLimitProperties properties) {
        return new StartupSummary(sources, guard, properties);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotationStartupValidator annotationStartupValidator(ConfigurableListableBeanFactory beanFactory) {
        return new AnnotationStartupValidator(beanFactory);
    }

    /** Rate limits on Redis and the interception of {@code @RateLimited} methods. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
    static final class Enabled {

        @Bean
        Fallbacks rateLimitFallbacks() {
            return new Fallbacks();
        }

        @Bean
        @ConditionalOnMissingBean
        Plans rateLimitPlans(RateLimitProperties properties, ObjectProvider<PlanSource> planSource) {
            return new Plans(properties.getPlans().compiled(), planSource::getIfAvailable);
        }

        @Bean
        RateLimitDecisions rateLimitDecisions(
                ObjectProvider<RateLimiter> limiter,
                RateLimitProperties properties,
                Fallbacks fallbacks,
                ObjectProvider<RedisInstances> instances,
                ObjectProvider<io.github.ratelimit.core.ClientBlocks> blocks,
                ObjectProvider<io.github.ratelimit.core.LimitOverrides> overrides) {
            RateLimitProperties.LocalLimitSettings local = properties.getLocalLimits();
            RateLimitProperties.Exempt exempt = properties.getExempt();
            io.github.ratelimit.core.ClientBlocks operatorBlocks = blocks.getIfAvailable();
            io.github.ratelimit.core.LimitOverrides operatorOverrides = overrides.getIfAvailable();
            RedisInstances counted = instances.getIfAvailable();
            IntSupplier live = counted != null ? counted::count : local::getInstances;
            return RateLimitDecisions.builder(limiter::getObject)
                    .allShadow(properties::isShadow)
                    .failureMode(properties::getFailureMode)
                    .staggeredByDefault(() -> properties.getRetryAdvice().getDefault() == RetryAdvice.STAGGERED)
                    .fallbacks(fallbacks)
                    .localLimits(local.getMaxEntries(), live)
                    .exemptions(Exemptions.of(exempt.getIps(), exempt.getPrincipals(), exempt.getHeaders()))
                    // resolved now: a lookup in the bean factory on a call could park an event loop on its lock
                    .blocks(() -> operatorBlocks)
                    .overrides(() -> operatorOverrides)
                    .build();
        }

        /** This instance's announcement in Redis, and the count of live instances that local limits divide by. */
        @Bean(destroyMethod = "close")
        @ConditionalOnBean(RedissonClient.class)
        RedisInstances rateLimitInstances(RedissonClient redisson, RedisGuard guard, RateLimitProperties properties) {
            RedisInstances instances = new RedisInstances(
                    redisson,
                    guard,
                    properties.getKeyPrefix(),
                    properties.getLocalLimits().getInstances(),
                    ANNOUNCE_EVERY);
            instances.start();
            return instances;
        }

        /** The clients blocked by operators, on every instance sharing the key prefix. */
        @Bean(destroyMethod = "close")
        @ConditionalOnBean(RedissonClient.class)
        @ConditionalOnMissingBean(io.github.ratelimit.core.ClientBlocks.class)
        RedisBlocks rateLimitBlocks(RedissonClient redisson, RedisGuard guard, RateLimitProperties properties) {
            RedisBlocks blocks = new RedisBlocks(redisson, guard, properties.getKeyPrefix(), Duration.ofSeconds(1));
            blocks.start();
            return blocks;
        }

        /** Operators' overrides of limits by name, on every instance sharing the key prefix. */
        @Bean(destroyMethod = "close")
        @ConditionalOnBean(RedissonClient.class)
        @ConditionalOnMissingBean(io.github.ratelimit.core.LimitOverrides.class)
        RedisOverrides rateLimitOverrides(RedissonClient redisson, RedisGuard guard, RateLimitProperties properties) {
            RedisOverrides overrides =
                    new RedisOverrides(redisson, guard, properties.getKeyPrefix(), Duration.ofSeconds(1));
            overrides.start();
            return overrides;
        }

        /** The plans of {@code ratelimit.plans.customers}; an application's own source replaces it. */
        @Bean
        @ConditionalOnMissingBean
        PlanSource rateLimitPlanSource(RateLimitProperties properties) {
            Map<String, String> customers = Map.copyOf(properties.getPlans().getCustomers());
            return (group, customer) -> customers.get(customer);
        }

        @Bean
        @ConditionalOnMissingBean(RateLimiter.class)
        RedisRateLimiter rateLimiter(RedissonClient redisson, RateLimitProperties properties, RedisGuard guard) {
            RateLimitProperties.LocalRefusalSettings local = properties.getLocalRefusals();
            return new RedisRateLimiter(
                    redisson,
                    properties.getKeyPrefix(),
                    guard,
                    properties.getRetryAdvice().getHorizonWindows(),
                    local.isEnabled() ? local.getMaxEntries() : 0);
        }

        /** The decision path made ready before the first request, when Redis answers at start. */
        @Bean
        RateLimitWarmUp rateLimitWarmUp(
                ObjectProvider<RateLimitDecisions> decisions,
                ObjectProvider<RedisGuard> guard,
                ObjectProvider<RedisConnector> connector) {
            return new RateLimitWarmUp(
                    decisions,
                    () -> {
                        RedisGuard redis = guard.getIfAvailable();
                        return redis != null && redis.isConnected() && connector.getIfAvailable() != null;
                    },
                    () -> connector.getObject().healthCheck());
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        @ConditionalOnMissingBean
        static RateLimitAdvisor rateLimitAdvisor(
                ObjectProvider<RateLimitDecisions> decisions,
                ObjectProvider<RateLimiter> limiter,
                ObjectProvider<CallerContext> caller,
                ObjectProvider<KeyResolvers> keys,
                ObjectProvider<Plans> plans) {
            return new RateLimitAdvisor(decisions, limiter, caller, keys, plans);
        }
    }

    /** {@code ratelimit.enabled=false}: a limiter that admits every call without asking Redis. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "ratelimit.enabled", havingValue = false)
    static final class Disabled {

        @Bean
        @ConditionalOnMissingBean(RateLimiter.class)
        RateLimiter rateLimiter() {
            return requests -> new Decision(
                    true,
                    requests.stream()
                            .map(r -> new LimitOutcome(r, true, r.limit().limit(), Duration.ZERO, Duration.ZERO))
                            .toList(),
                    Instant.now());
        }
    }
}
