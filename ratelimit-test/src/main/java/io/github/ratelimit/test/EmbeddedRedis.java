package io.github.ratelimit.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives the test's application context a real redis-server: one per JVM, started on a free loopback port on first
 * use (a binary inside the embedded-redis jar; no Docker), stopped and its files removed when the JVM exits. The
 * context is pointed at it with {@code spring.data.redis.url} and connects before the first test, so decisions are
 * made by Redis from the first call. Works with {@code @SpringBootTest}, {@code @WebMvcTest} and
 * {@code @WebFluxTest} (with {@link AutoConfigureRateLimits}).
 *
 * <p>After each test method the counts, tokens and locks under the context's {@code ratelimit.key-prefix} are deleted
 * (never anything else on the server), and every instance forgets its refusals served in the JVM, so each test starts
 * from a full budget; {@code clearAfterEach = false} keeps them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface EmbeddedRedis {

    /** Whether the starter's keys are deleted after each test method. */
    boolean clearAfterEach() default true;
}
