package io.github.ratelimit.spring.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.spring.EngineContext;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.support.GenericWebApplicationContext;

/**
 * A key that cannot be evaluated for one request (here: a missing optional parameter) answers a problem+json 400
 * that never shows the expression, not a generic 500; the log gets one line, not a stack trace per request. On plain
 * Spring MVC, the engine wired by hand ({@link EngineContext#startMvc()}).
 */
class KeyEvaluationHttpTests {

    @RestController
    static class Reports {
        @GetMapping("/reports")
        @RateLimited(limit = 5, windowMs = 60_000, key = "#tenant")
        String report(@RequestParam(required = false) String tenant) {
            return "ok";
        }

        @GetMapping("/exports")
        @RateLimited(limit = 5, windowMs = 60_000, cost = "#n")
        String export(@RequestParam int n) {
            return "ok";
        }
    }

    /**
     * A cost outside {@code 0..limit} (here {@code ?n=6} against a limit of 5) is the request's cost, not a missing key:
     * the problem says so, with the cost and what the limit allows, never the expression.
     */
    @Test
    void aCostOutsideTheLimitAnswers400SayingSo() throws Exception {
        try (GenericWebApplicationContext context = EngineContext.on("costs-" + UUID.randomUUID() + ":")
                .beans(Reports.class)
                .startMvc()) {
            MockMvc mvc = MockMvcBuilders.webAppContextSetup(context).build();
            MockHttpServletResponse response = mvc.perform(MockMvcRequestBuilders.get("/exports?n=6"))
                    .andReturn()
                    .getResponse();
            assertThat(response.getStatus()).isEqualTo(400);
            assertThat(response.getContentAsString())
                    .contains("\"title\":\"Invalid rate limit cost\"")
                    .contains("\"detail\":\"The rate limit cost of this request, 6, is outside what its limit allows"
                            + " (0..5).\"")
                    .doesNotContain("#n")
                    .doesNotContain("key");
            assertThat(mvc.perform(MockMvcRequestBuilders.get("/exports?n=5"))
                            .andReturn()
                            .getResponse()
                            .getStatus())
                    .isEqualTo(200);
        }
    }

    @Test
    void aKeyThatCannotBeDeterminedAnswers400WithoutTheExpressionAndLogsOnce() throws Exception {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logged.start();
        root.addAppender(logged);
        try (GenericWebApplicationContext context = EngineContext.on("keys-" + UUID.randomUUID() + ":")
                .beans(Reports.class)
                .startMvc()) {
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
        }
        root.detachAppender(logged);
        List<ILoggingEvent> lines = logged.list.stream()
                .filter(event -> event.getFormattedMessage().contains("Rate limit key not determined"))
                .toList();
        assertThat(lines).as("one line, not one per request").hasSize(1);
        assertThat(lines.get(0).getFormattedMessage()).contains("'#tenant'");
        assertThat(lines.get(0).getThrowableProxy()).as("no stack trace").isNull();
    }
}
