package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A key that cannot be evaluated for one request (here: a missing optional parameter) answers a problem+json 400
 * that never shows the expression, not Boot's generic 500; the log gets one line, not a stack trace per request.
 */
@ExtendWith(OutputCaptureExtension.class)
class KeyEvaluationHttpTests {

    @RestController
    static class Reports {
        @GetMapping("/reports")
        @RateLimited(limit = 5, windowMs = 60_000, key = "#tenant")
        String report(@RequestParam(required = false) String tenant) {
            return "ok";
        }
    }

    @Test
    void aKeyThatCannotBeDeterminedAnswers400WithoutTheExpressionAndLogsOnce(CapturedOutput output) {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        AopAutoConfiguration.class,
                        WebMvcAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class,
                        RateLimitAutoConfiguration.class,
                        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                        RateLimitWebAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.url=" + SharedRedis.get().url(),
                        "ratelimit.key-prefix=keys-" + UUID.randomUUID() + ":")
                .withBean(Reports.class)
                .run(context -> {
                    MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
                    for (int i = 0; i < 5; i++) {
                        MockHttpServletResponse response = mvc.perform(MockMvcRequestBuilders.get("/reports"))
                                .andReturn()
                                .getResponse();
                        assertThat(response.getStatus()).isEqualTo(400);
                        assertThat(response.getContentType()).isEqualTo("application/problem+json");
                        assertThat(response.getContentAsString())
                                .contains("\"status\":400")
                                .doesNotContain("#tenant");
                    }
                    assertThat(mvc.perform(MockMvcRequestBuilders.get("/reports?tenant=acme"))
                                    .andReturn()
                                    .getResponse()
                                    .getStatus())
                            .isEqualTo(200);
                });
        String log = output.getOut();
        assertThat(log.split("Rate limit key not determined", -1)).hasSize(2);
        assertThat(log).contains("'#tenant'").doesNotContain("\tat io.github.ratelimit");
    }
}
