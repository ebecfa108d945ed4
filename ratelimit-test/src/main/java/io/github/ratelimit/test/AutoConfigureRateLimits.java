package io.github.ratelimit.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * Brings the rate limiter into a test slice such as {@code @WebMvcTest} or {@code @WebFluxTest}: the annotations'
 * interceptors, the path rules, the 429/400/404/409/503 answers and their headers, with the Redis client. Slices leave
 * it out by default (a controller's {@code @RateLimited} is then not applied, and its {@code TokenConsumption} and
 * {@code LockHandle} parameters are null); combine with {@link EmbeddedRedis} for a Redis to decide.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureRateLimits {}
