package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.aop.CallerContext;
import io.github.ratelimit.web.InterceptorArgumentResolver;
import io.github.ratelimit.web.LockExceptionHandler;
import io.github.ratelimit.web.RateLimitExceptionHandler;
import io.github.ratelimit.web.ServletCallerContext;
import io.github.ratelimit.web.SingleUseTokenExceptionHandler;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Servlet support: the caller's identity for keys, RateLimit headers, 429 answers, and problem answers for
 * refused single-use tokens (400/404/409) and busy locks (409).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
public final class RateLimitWebAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(CallerContext.class)
    ServletCallerContext rateLimitCallerContext() {
        return new ServletCallerContext();
    }

    @Bean
    @ConditionalOnMissingBean(RateLimitExceptionHandler.class)
    RateLimitExceptionHandler rateLimitExceptionHandler() {
        return new RateLimitExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean(SingleUseTokenExceptionHandler.class)
    SingleUseTokenExceptionHandler singleUseTokenExceptionHandler() {
        return new SingleUseTokenExceptionHandler();
    }

    @Bean
    @ConditionalOnMissingBean(LockExceptionHandler.class)
    LockExceptionHandler lockExceptionHandler() {
        return new LockExceptionHandler();
    }

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
