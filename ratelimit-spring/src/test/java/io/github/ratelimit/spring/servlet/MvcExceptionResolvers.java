package io.github.ratelimit.spring.servlet;

import java.util.List;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.mock.web.MockServletContext;
import org.springframework.web.context.support.AnnotationConfigWebApplicationContext;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.mvc.method.annotation.ExceptionHandlerExceptionResolver;

/** Spring MVC's exception resolution with the starter's handlers, for driving the filter without a server. */
final class MvcExceptionResolvers {

    private MvcExceptionResolvers() {}

    static HandlerExceptionResolver withStarterHandlers() {
        AnnotationConfigWebApplicationContext context = new AnnotationConfigWebApplicationContext();
        context.setServletContext(new MockServletContext());
        context.register(
                RateLimitExceptionHandler.class,
                RedisUnavailableHandler.class,
                SingleUseTokenExceptionHandler.class,
                LockExceptionHandler.class);
        context.refresh();
        ExceptionHandlerExceptionResolver resolver = new ExceptionHandlerExceptionResolver();
        resolver.setApplicationContext(context);
        resolver.setMessageConverters(List.of(new JacksonJsonHttpMessageConverter()));
        resolver.afterPropertiesSet();
        return resolver;
    }
}
