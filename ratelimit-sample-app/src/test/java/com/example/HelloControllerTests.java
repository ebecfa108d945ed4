package com.example;

import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

import io.github.ratelimit.test.AutoConfigureRateLimits;
import io.github.ratelimit.test.EmbeddedRedis;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.test.web.servlet.MockMvc;

@WebMvcTest(HelloController.class)
@AutoConfigureRateLimits
@EmbeddedRedis
class HelloControllerTests {

    @Autowired
    MockMvc mvc;

    @Test
    void fivePerSecondThen429() throws Exception {
        // the application's first request is slow (classes and scripts loaded): made by another client
        mvc.perform(get("/api/hello").with(request -> {
            request.setRemoteAddr("192.0.2.1");
            return request;
        }));
        for (int i = 0; i < 5; i++) {
            mvc.perform(get("/api/hello")).andExpect(status().isOk()).andExpect(header().exists("RateLimit"));
        }
        mvc.perform(get("/api/hello"))
                .andExpect(status().isTooManyRequests())
                .andExpect(header().exists("Retry-After"));
    }
}
