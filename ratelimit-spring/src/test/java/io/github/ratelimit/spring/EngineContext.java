package io.github.ratelimit.spring;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.LimitOverrides;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.concurrency.RedisConcurrencyLimiter;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.locks.RedisLockManager;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.spring.aop.AnnotationStartupValidator;
import io.github.ratelimit.spring.aop.ConcurrencyLimitedAdvisor;
import io.github.ratelimit.spring.aop.LockedAdvisor;
import io.github.ratelimit.spring.aop.RateLimitAdvisor;
import io.github.ratelimit.spring.aop.SingleUseAdvisor;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.servlet.LockExceptionHandler;
import io.github.ratelimit.spring.servlet.RateLimitExceptionHandler;
import io.github.ratelimit.spring.servlet.RedisUnavailableHandler;
import io.github.ratelimit.spring.servlet.ServletCallerContext;
import io.github.ratelimit.spring.servlet.SingleUseTokenExceptionHandler;
import io.github.ratelimit.spring.web.ClientAddresses;
import io.github.ratelimit.spring.wiring.RateLimitListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.AnnotatedBeanDefinitionReader;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.context.support.GenericWebApplicationContext;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/**
 * The engine's tests' application: the four annotations wired by hand on plain Spring, as an application without Boot
 * would (see {@link RateLimitsOnPlainSpring}), on the Redis stores, with the annotations' startup checks and an
 * operator's overrides when the test declares a {@link LimitOverrides} bean, and the events told to every {@link
 * RateLimitListener} bean. Each context is one application instance,
 * with a Redis client of its own: two contexts on one key prefix are two instances of one fleet.
 *
 * <pre>
 * try (var context = EngineContext.on("prefix:").beans(Reports.class).start()) { ... }
 * </pre>
 */
public final class EngineContext {

    private final String keyPrefix;
    private final List<Class<?>> beans = new ArrayList<>();
    private final List<Consumer<GenericApplicationContext>> registrations = new ArrayList<>();
    private final Map<String, Object> properties = new HashMap<>();

    private EngineContext(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        properties.put("engine.redis-url", SharedRedis.get().url());
        properties.put("engine.shadow", "false");
    }

    /** An application whose keys start with this prefix, on the shared test Redis. */
    public static EngineContext on(String keyPrefix) {
        return new EngineContext(keyPrefix);
    }

    /** The application's own beans (or configuration classes). */
    public EngineContext beans(Class<?>... types) {
        beans.addAll(List.of(types));
        return this;
    }

    /** A bean the test makes itself. */
    public <T> EngineContext bean(Class<T> type, java.util.function.Supplier<T> supplier) {
        registrations.add(context -> context.registerBean(type, supplier));
        return this;
    }

    /** A property of the application's environment (its beans read them with {@code @Value}). */
    public EngineContext property(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    /** Another Redis: one that is down, say (the client connects lazily, so the start never waits for it). */
    public EngineContext redis(String url) {
        return property("engine.redis-url", url);
    }

    /** Every limit in shadow mode: decided and counted, never refused (Boot's {@code ratelimit.shadow}). */
    public EngineContext shadow() {
        return property("engine.shadow", "true");
    }

    /** Starts the application; a failed start throws, as {@code refresh} does, with the context closed. */
    public AnnotationConfigApplicationContext start() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        return started(context, context::register);
    }

    /**
     * Starts the application as a Spring MVC one on a mock servlet context ({@code @EnableWebMvc}), with the servlet
     * side of the engine an application declares: the caller of each request for keys (no trusted proxy) and the
     * answers of refusals; drive it with {@code MockMvcBuilders.webAppContextSetup}.
     */
    public GenericWebApplicationContext startMvc() {
        GenericWebApplicationContext context = new GenericWebApplicationContext(new MockServletContext());
        AnnotatedBeanDefinitionReader reader = new AnnotatedBeanDefinitionReader(context);
        reader.register(Mvc.class);
        return started(context, reader::register);
    }

    private <C extends GenericApplicationContext> C started(C context, Consumer<Class<?>> register) {
        Map<String, Object> environment = new HashMap<>(properties);
        environment.put("engine.key-prefix", keyPrefix);
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("engine", environment));
        register.accept(Wiring.class);
        beans.forEach(register);
        registrations.forEach(registration -> registration.accept(context));
        try {
            context.refresh();
        } catch (RuntimeException failed) {
            context.close();
            throw failed;
        }
        return context;
    }

    /** The servlet side: who calls (for keys such as {@code #ip}) and the answers of every refusal. */
    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Mvc {

        @Bean
        ServletCallerContext rateLimitCallerContext() {
            return new ServletCallerContext(new ClientAddresses(List.of(), 64), false);
        }

        @Bean
        RateLimitExceptionHandler rateLimitExceptionHandler() {
            return new RateLimitExceptionHandler(false);
        }

        @Bean
        SingleUseTokenExceptionHandler singleUseTokenExceptionHandler() {
            return new SingleUseTokenExceptionHandler();
        }

        @Bean
        RedisUnavailableHandler redisUnavailableHandler() {
            return new RedisUnavailableHandler();
        }

        @Bean
        LockExceptionHandler lockExceptionHandler() {
            return new LockExceptionHandler();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAspectJAutoProxy(proxyTargetClass = true)
    static class Wiring {

        @Bean(destroyMethod = "shutdown")
        RedissonClient redisson(@Value("${engine.redis-url}") String url) {
            Config config = new Config();
            config.setCodec(StringCodec.INSTANCE);
            config.setLazyInitialization(true); // a Redis that is down never fails the start
            config.useSingleServer()
                    .setAddress(url)
                    .setConnectTimeout(1_000)
                    .setRetryAttempts(0)
                    .setConnectionMinimumIdleSize(2)
                    .setConnectionPoolSize(32);
            return Redisson.create(config);
        }

        @Bean
        RedisGuard rateLimitGuard() {
            // a patient budget: these tests check what is decided, on a machine that may be busy
            return new RedisGuard(Duration.ofSeconds(5), 5, Duration.ofSeconds(1));
        }

        @Bean
        RateLimiter rateLimiter(
                RedissonClient redisson, RedisGuard guard, @Value("${engine.key-prefix}") String keyPrefix) {
            return new RedisRateLimiter(redisson, keyPrefix, guard);
        }

        @Bean(destroyMethod = "close")
        LockManager lockManager(
                RedissonClient redisson, RedisGuard guard, @Value("${engine.key-prefix}") String keyPrefix) {
            return new RedisLockManager(redisson, keyPrefix, guard);
        }

        @Bean
        SingleUseTokens singleUseTokens(
                RedissonClient redisson, RedisGuard guard, @Value("${engine.key-prefix}") String keyPrefix) {
            return new RedisSingleUseTokens(redisson, keyPrefix, guard);
        }

        @Bean
        ConcurrencyLimiter concurrencyLimiter(
                RedissonClient redisson, RedisGuard guard, @Value("${engine.key-prefix}") String keyPrefix) {
            return new RedisConcurrencyLimiter(redisson, keyPrefix, guard);
        }

        @Bean
        RateLimitDecisions rateLimitDecisions(
                RateLimiter limiter,
                ObjectProvider<LimitOverrides> overrides,
                @Value("${engine.shadow}") boolean shadow) {
            RateLimitDecisions.Builder flow =
                    RateLimitDecisions.builder(() -> limiter).allShadow(() -> shadow);
            LimitOverrides operators = overrides.getIfAvailable();
            if (operators != null) {
                flow.overrides(() -> operators);
            }
            return flow.build();
        }

        /** Every listener bean is told the events of the stores and the decision flow, as Boot's wiring does. */
        @Bean
        static RateLimitListeners rateLimitListeners(ObjectProvider<RateLimitListener> listeners) {
            return new RateLimitListeners(listeners);
        }

        @Bean
        static AnnotationStartupValidator annotationStartupValidator(ConfigurableListableBeanFactory beanFactory) {
            return new AnnotationStartupValidator(beanFactory);
        }

        @Bean
        static RateLimitAdvisor rateLimitAdvisor(
                ObjectProvider<RateLimitDecisions> decisions,
                ObjectProvider<RateLimiter> limiter,
                ObjectProvider<CallerContext> caller,
                ObjectProvider<KeyResolvers> keys,
                ObjectProvider<Plans> plans) {
            return new RateLimitAdvisor(decisions, limiter, caller, keys, plans);
        }

        @Bean
        static LockedAdvisor lockedAdvisor(
                ObjectProvider<LockManager> locks,
                ObjectProvider<CallerContext> caller,
                ObjectProvider<KeyResolvers> keys) {
            return new LockedAdvisor(locks, caller, keys);
        }

        @Bean
        static SingleUseAdvisor singleUseAdvisor(
                ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
            return new SingleUseAdvisor(tokens, caller);
        }

        @Bean
        static ConcurrencyLimitedAdvisor concurrencyLimitedAdvisor(
                ObjectProvider<ConcurrencyLimiter> limiter,
                ObjectProvider<CallerContext> caller,
                ObjectProvider<KeyResolvers> keys) {
            return new ConcurrencyLimitedAdvisor(limiter, caller, keys);
        }
    }
}
