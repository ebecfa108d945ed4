package io.github.ratelimit.test;

import io.github.ratelimit.core.RateLimiter;
import java.util.ArrayList;
import java.util.List;
import org.redisson.api.RedissonClient;
import org.springframework.context.ApplicationContext;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.TestExecutionListener;

/**
 * After each test method of an {@link EmbeddedRedis} test, deletes the starter's keys under the context's key prefix
 * (counts, tokens, locks; nothing else on the server) and has every instance forget its refusals served in the JVM.
 */
final class ClearRedisAfterEachTest implements TestExecutionListener, Ordered {

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 100;
    }

    @Override
    public void afterTestMethod(TestContext testContext) {
        EmbeddedRedis settings =
                TestContextAnnotationUtils.findMergedAnnotation(testContext.getTestClass(), EmbeddedRedis.class);
        if (settings == null || !settings.clearAfterEach() || !testContext.hasApplicationContext()) {
            return;
        }
        ApplicationContext context = testContext.getApplicationContext();
        RedissonClient redisson = context.getBeanProvider(RedissonClient.class).getIfAvailable();
        RateLimiter limiter = context.getBeanProvider(RateLimiter.class).getIfAvailable();
        if (redisson == null || limiter == null) {
            return;
        }
        // the property as the starter binds it (ratelimit.key-prefix), read without depending on its classes
        String keyPrefix = context.getEnvironment().getProperty("ratelimit.key-prefix", "ratelimit:");
        // SCAN and DEL on this thread (Redisson's deleteByPattern waits on its own I/O pool)
        List<String> batch = new ArrayList<>();
        for (String key : redisson.getKeys().getKeysByPattern(keyPrefix + "*", 500)) {
            batch.add(key);
            if (batch.size() == 500) {
                redisson.getKeys().delete(batch.toArray(String[]::new));
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            redisson.getKeys().delete(batch.toArray(String[]::new));
        }
        limiter.forgetLocalState();
    }
}
