package io.github.ratelimit.gateway;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import reactor.core.publisher.Mono;

/**
 * What the gateway tests share: one real Redis and one stub upstream for the class, and the gateways a test started,
 * closed after it.
 */
abstract class GatewayFixture {

    static RedisProcess redis;
    static Upstream upstream;
    final List<ConfigurableApplicationContext> started = new ArrayList<>();

    @BeforeAll
    static void startRedisAndUpstream() {
        redis = RedisProcess.start();
        upstream = new Upstream();
    }

    @AfterAll
    static void stopRedisAndUpstream() {
        upstream.close();
        redis.close();
    }

    @AfterEach
    void closeInstances() {
        started.forEach(ConfigurableApplicationContext::close);
    }

    /** A WebFlux route's key: the X-Client header the tests send. */
    static KeyResolver clientHeader() {
        return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
    }
}
