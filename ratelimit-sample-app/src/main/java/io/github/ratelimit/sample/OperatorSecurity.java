package io.github.ratelimit.sample;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The operator's writes ({@code POST} and {@code DELETE} under {@code /actuator/ratelimits}: overrides, blocks, resets;
 * credits through {@code POST /api/usage/credit}; a refresh of the limits through {@code POST /actuator/refresh}) need
 * the OPS role, over HTTP Basic ({@code spring.security.user.*}); reads and the API stay open. No CSRF tokens:
 * the API and the endpoint are called by programs, not by forms in a browser.
 */
@Configuration(proxyBeanMethods = false)
class OperatorSecurity {

    @Bean
    SecurityFilterChain operatorWrites(HttpSecurity http) throws Exception {
        return http.authorizeHttpRequests(
                        requests -> requests.requestMatchers(HttpMethod.POST, "/actuator/ratelimits/**")
                                .hasRole("OPS")
                                .requestMatchers(HttpMethod.DELETE, "/actuator/ratelimits/**")
                                .hasRole("OPS")
                                .requestMatchers(HttpMethod.POST, "/api/usage/credit", "/actuator/refresh")
                                .hasRole("OPS")
                                .anyRequest()
                                .permitAll())
                .httpBasic(Customizer.withDefaults())
                .csrf(csrf -> csrf.disable())
                .build();
    }
}
