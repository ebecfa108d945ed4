package io.github.ratelimit.sample.kotlin

import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.http.HttpMethod
import org.springframework.security.config.Customizer
import org.springframework.security.config.web.server.ServerHttpSecurity
import org.springframework.security.web.server.SecurityWebFilterChain

/**
 * The operator's writes (`POST` and `DELETE` under `/actuator/ratelimits`, credits through `POST /api/usage/credit`, a
 * refresh of the limits through `POST /actuator/refresh`) need the OPS role over HTTP Basic; reads
 * and the API stay open. No CSRF tokens: the API and the endpoint are called by programs, not by forms.
 */
@Configuration(proxyBeanMethods = false)
class OperatorSecurity {

    @Bean
    fun operatorWrites(http: ServerHttpSecurity): SecurityWebFilterChain =
        http.authorizeExchange { exchanges ->
            exchanges
                .pathMatchers(HttpMethod.POST, "/actuator/ratelimits/**").hasRole("OPS")
                .pathMatchers(HttpMethod.DELETE, "/actuator/ratelimits/**").hasRole("OPS")
                .pathMatchers(HttpMethod.POST, "/api/usage/credit", "/actuator/refresh").hasRole("OPS")
                .anyExchange().permitAll()
        }
            .httpBasic(Customizer.withDefaults())
            .csrf { it.disable() }
            .build()
}
