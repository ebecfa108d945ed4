package io.github.ratelimit.sample.reactive;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.KeyResolver;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * An application's own kind of key: the {@code tenant} bean (here the X-Tenant-Id header; in a real app perhaps a
 * JWT claim), named in the annotation's key. 3 per minute per tenant; no tenant is a 400.
 */
@RestController
class TenantController {

    @GetMapping("/api/tenant-usage")
    @RateLimited(name = "tenant-usage", limit = 3, windowMs = 60_000, key = "tenant")
    Mono<Map<String, Object>> usage() {
        return Mono.just(Map.of("usage", "ok"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Keys {

        @Bean
        KeyResolver tenant() {
            return caller -> caller.header("X-Tenant-Id");
        }
    }
}
