package io.github.ratelimit.gateway;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
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

    /** A gateway on server-webflux, whose routes' key resolver {@code userKey} (the name docs/stacks.md uses) reads X-Client. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class WebFluxGateway {

        @Bean
        KeyResolver userKey() {
            return exchange ->
                    Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-Client"));
        }
    }

    /** A gateway on server-webmvc. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class MvcGateway {}

    /** Only the WebFlux server of the gateway: both are on this module's test class path. */
    static final Map<String, Object> ONLY_WEBFLUX = Map.of(
            "spring.autoconfigure.exclude",
            String.join(
                    ",",
                    "org.springframework.cloud.gateway.server.mvc.GatewayServerMvcAutoConfiguration",
                    "org.springframework.cloud.gateway.server.mvc.filter.FilterAutoConfiguration",
                    "org.springframework.cloud.gateway.server.mvc.handler.HandlerFunctionAutoConfiguration",
                    "org.springframework.cloud.gateway.server.mvc.predicate.PredicateAutoConfiguration"));

    /** Only the Web MVC server of the gateway. */
    static final Map<String, Object> ONLY_MVC = Map.of("spring.cloud.gateway.server.webflux.enabled", "false");
}
