package com.example;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.context.annotation.Import;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The README's test as printed, in an application whose first request takes a second longer once it was counted (a
 * cold JVM on a busy machine): it still holds, since that request is not one of the six it counts.
 */
@Import(HelloControllerSlowStartTests.FirstRequestTakesASecond.class)
class HelloControllerSlowStartTests extends HelloControllerTests {

    /** Holds up the first request's answer by a second, after the limit counted it. */
    static final class FirstRequestTakesASecond extends OncePerRequestFilter {

        private final AtomicBoolean first = new AtomicBoolean(true);

        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            chain.doFilter(request, response);
            if (first.compareAndSet(true, false)) {
                try {
                    TimeUnit.SECONDS.sleep(1); // the slowness the test stands for, not a wait for anything
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
