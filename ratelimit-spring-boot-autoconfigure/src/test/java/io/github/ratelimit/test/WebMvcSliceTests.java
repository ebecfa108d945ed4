package io.github.ratelimit.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.annotation.SingleUse;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.core.tokens.SingleUseTokens.TokenConsumption;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A user's {@code @WebMvcTest} of an annotated controller: with {@link AutoConfigureRateLimits} and
 * {@link EmbeddedRedis} the limits, tokens and locks apply with their HTTP answers, and each test method starts from a
 * full budget; without them the slice works and the annotations stay out of the way.
 */
class WebMvcSliceTests {

    @RestController
    static class ReportController {

        @GetMapping("/report")
        @RateLimited(limit = 2, windowMs = 60_000, key = "'everyone'")
        String report() {
            return "report";
        }

        @GetMapping("/spawn")
        @SingleUse(purpose = "spawn", token = "#token")
        String spawn(@RequestParam(required = false) String token, TokenConsumption consumption) {
            return consumption == null ? "no token support" : "spawned " + consumption.metadata();
        }

        @PostMapping("/work")
        @Locked(name = "work", key = "'one'")
        String work(LockHandle lock) {
            return lock == null ? "no lock support" : "fence " + lock.fencingToken();
        }
    }

    @Nested
    @WebMvcTest(ReportController.class)
    @AutoConfigureRateLimits
    @EmbeddedRedis
    class WithTheRateLimiter {

        @Autowired
        MockMvc mvc;

        @Autowired
        SingleUseTokens tokens;

        /** Runs twice (the other test below is the same): each starts from a full budget. */
        @Test
        void twoReportsThen429() throws Exception {
            twoThen429();
        }

        @Test
        void twoReportsThen429Again() throws Exception {
            twoThen429();
        }

        private void twoThen429() throws Exception {
            assertThat(get("/report").getStatus()).isEqualTo(200);
            assertThat(get("/report").getStatus()).isEqualTo(200);
            MockHttpServletResponse refused = get("/report");
            assertThat(refused.getStatus()).isEqualTo(429);
            assertThat(refused.getHeader("Retry-After")).isNotNull();
            assertThat(refused.getHeader("RateLimit-Policy")).contains("q=2");
        }

        @Test
        void tokensAndLocksWork() throws Exception {
            String token = tokens.issue("spawn", Map.of("size", "small"), Duration.ofMinutes(1))
                    .token();
            assertThat(get("/spawn?token=" + token).getContentAsString()).isEqualTo("spawned {size=small}");
            assertThat(get("/spawn?token=" + token).getStatus()).isEqualTo(409);
            assertThat(get("/spawn").getStatus()).isEqualTo(400);
            assertThat(mvc.perform(MockMvcRequestBuilders.post("/work"))
                            .andReturn()
                            .getResponse()
                            .getContentAsString())
                    .startsWith("fence ");
        }

        private MockHttpServletResponse get(String path) throws Exception {
            return mvc.perform(MockMvcRequestBuilders.get(path)).andReturn().getResponse();
        }
    }

    @Nested
    @WebMvcTest(ReportController.class)
    class WithoutIt {

        @Autowired
        MockMvc mvc;

        @Test
        void theSliceWorksAndTheAnnotationsStayOutOfTheWay() throws Exception {
            for (int i = 0; i < 3; i++) {
                assertThat(mvc.perform(MockMvcRequestBuilders.get("/report"))
                                .andReturn()
                                .getResponse()
                                .getStatus())
                        .isEqualTo(200);
            }
            assertThat(mvc.perform(MockMvcRequestBuilders.get("/spawn"))
                            .andReturn()
                            .getResponse()
                            .getContentAsString())
                    .isEqualTo("no token support");
            assertThat(mvc.perform(MockMvcRequestBuilders.post("/work"))
                            .andReturn()
                            .getResponse()
                            .getContentAsString())
                    .isEqualTo("no lock support");
        }
    }
}
