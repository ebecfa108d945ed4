package io.github.ratelimit.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.spring.EngineContext;
import io.github.ratelimit.test.support.RateLimitFields;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.GenericWebApplicationContext;
import reactor.core.publisher.Mono;

/**
 * On Spring MVC, a {@code CompletionStage} or {@code Mono} handler is decided without blocking and completes on
 * another thread; its RateLimit fields still reach the response, and its refusal is the usual 429. On plain Spring MVC,
 * the engine wired by hand ({@link EngineContext#startMvc()}).
 */
class AsyncServletHeadersTests {

    @RestController
    static class Api {
        @GetMapping("/stage")
        @RateLimited(limit = 1, windowMs = 60_000, key = "#ip")
        CompletionStage<String> stage() {
            return CompletableFuture.completedFuture("stage");
        }

        @GetMapping("/mono")
        @RateLimited(limit = 1, windowMs = 60_000, key = "#ip")
        Mono<String> mono() {
            return Mono.just("mono");
        }
    }

    @Test
    void asyncHandlersGetTheirRateLimitFieldsAndTheir429() throws Exception {
        try (GenericWebApplicationContext context = EngineContext.on("async-mvc-" + UUID.randomUUID() + ":")
                .beans(Api.class)
                .startMvc()) {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            for (String path : new String[] {"/stage", "/mono"}) {
                MockHttpServletResponse admitted = call(mvc, path);
                assertThat(admitted.getStatus()).as(path).isEqualTo(200);
                RateLimitFields fields =
                        RateLimitFields.parse(admitted.getHeader("RateLimit-Policy"), admitted.getHeader("RateLimit"));
                assertThat(fields.remaining(fields.names().get(0))).as(path).isZero();
                MockHttpServletResponse refused = call(mvc, path);
                assertThat(refused.getStatus()).as(path).isEqualTo(429);
                assertThat(refused.getHeader("Retry-After")).as(path).isNotNull();
            }
        }
    }

    private static MockHttpServletResponse call(MockMvc mvc, String path) throws Exception {
        MvcResult result = mvc.perform(MockMvcRequestBuilders.get(path)).andReturn();
        if (result.getRequest().isAsyncStarted()) {
            result = mvc.perform(MockMvcRequestBuilders.asyncDispatch(result)).andReturn();
        }
        return result.getResponse();
    }
}
