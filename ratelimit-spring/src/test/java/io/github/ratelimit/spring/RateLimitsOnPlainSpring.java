package io.github.ratelimit.spring;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.redis.RedisConnector;
import io.github.ratelimit.redis.RedisGuard;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.spring.aop.RateLimitAdvisor;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.Plans;
import java.time.Duration;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.EnableAspectJAutoProxy;

/** {@code @RateLimited} on an application's beans with Spring and no Boot: the engine's beans, declared by hand. */
@Configuration(proxyBeanMethods = false)
@EnableAspectJAutoProxy(proxyTargetClass = true)
public class RateLimitsOnPlainSpring {

    @Bean(destroyMethod = "shutdown")
    RedissonClient redisson(@Value("${redis.url}") String url) {
        Config config = new Config();
        config.setLazyInitialization(true); // the connector connects: Redis down never fails the start
        config.useSingleServer().setAddress(url);
        return Redisson.create(config);
    }

    @Bean
    RedisGuard rateLimitGuard() {
        return RedisGuard.defaults(); // 200 ms per call, a circuit breaker
    }

    @Bean(destroyMethod = "close")
    RedisConnector rateLimitConnector(RedissonClient redisson, RedisGuard guard) {
        RedisConnector connector =
                new RedisConnector(redisson, guard, Duration.ofSeconds(3), Duration.ofSeconds(1), List.of());
        connector.start(); // connects in the background, and retries while Redis is down
        connector.awaitFirstAttempt(Duration.ofSeconds(3));
        return connector;
    }

    @Bean
    RateLimiter rateLimiter(
            RedissonClient redisson,
            RedisGuard guard,
            RedisConnector connector,
            @Value("${ratelimit.key-prefix:ratelimit:}") String keyPrefix) {
        return new RedisRateLimiter(redisson, keyPrefix, guard);
    }

    @Bean
    RateLimitDecisions rateLimitDecisions(RateLimiter limiter) {
        return RateLimitDecisions.of(limiter); // while Redis cannot decide, this instance's memory does
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
}
