package io.github.ratelimit.autoconfigure.aop;

import io.github.ratelimit.spring.aop.InterceptorArgumentResolver;
import io.github.ratelimit.spring.aop.ReactiveInterceptorArgumentResolver;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.reactive.result.method.annotation.ArgumentResolverConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The handler parameters of {@code @SingleUse} and {@code @Locked} methods ({@code TokenConsumption}, {@code LockHandle}):
 * never bound from the request, filled in by the interceptors. Needs no Redis, so it is also part of
 * {@code @WebMvcTest} and {@code @WebFluxTest} slices, where a controller with those parameters works without the rate
 * limiter (add {@code @AutoConfigureRateLimits} from {@code ratelimit-test} to apply the annotations there).
 */
@AutoConfiguration
public final class RateLimitArgumentResolversAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(WebMvcConfigurer.class)
    static final class Servlet {

        @Bean
        WebMvcConfigurer rateLimitArgumentResolverConfigurer() {
            return new WebMvcConfigurer() {
                @Override
                public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
                    resolvers.add(new InterceptorArgumentResolver());
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(WebFluxConfigurer.class)
    static final class Reactive {

        @Bean
        WebFluxConfigurer rateLimitReactiveArgumentResolverConfigurer() {
            return new WebFluxConfigurer() {
                @Override
                public void configureArgumentResolvers(ArgumentResolverConfigurer configurer) {
                    configurer.addCustomResolver(new ReactiveInterceptorArgumentResolver());
                }
            };
        }
    }
}
