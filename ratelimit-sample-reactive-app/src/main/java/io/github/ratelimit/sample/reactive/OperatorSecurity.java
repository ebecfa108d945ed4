package io.github.ratelimit.sample.reactive;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.server.SecurityWebFilterChain;

/**
 * The operator's writes ({@code POST} and {@code DELETE} under {@code /actuator/ratelimits}: overrides, blocks, resets;
 * credits through {@code POST /api/usage/credit}; a refresh of the limits through {@code POST /actuator/refresh}) need
 * the OPS role, over HTTP Basic ({@code spring.security.user.*}); reads and the API stay open. No CSRF tokens:
 * the API and the endpoint are called by programs, not by forms in a browser.
 */
@Configuration(proxyBeanMethods = false)
class OperatorSecurity {

    @Bean
    SecurityWebFilterChain operatorWrites(ServerHttpSecurity http) {
        return http.authorizeExchange(exchanges -> exchanges
                        .pathMatchers(HttpMethod.POST, "/actuator/ratelimits/**")
                        .hasRole("OPS")
                        .pathMatchers(HttpMethod.DELETE, "/actuator/ratelimits/**")
                        .hasRole("OPS")
                        .pathMatchers(HttpMethod.POST, "/api/usage/credit", "/actuator/refresh")
                        .hasRole("OPS")
                        .anyExchange()
                        .permitAll())
                .httpBasic(Customizer.withDefaults())
                .csrf(ServerHttpSecurity.CsrfSpec::disable)
                .build();
    }
}
