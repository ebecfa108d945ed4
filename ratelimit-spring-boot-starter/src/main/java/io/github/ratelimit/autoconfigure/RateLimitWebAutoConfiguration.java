package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.aop.CallerContext;
import io.github.ratelimit.web.RateLimitExceptionHandler;
import io.github.ratelimit.web.ServletCallerContext;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/** Servlet support: the caller's identity for keys, RateLimit headers, and 429 answers. */
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
}
