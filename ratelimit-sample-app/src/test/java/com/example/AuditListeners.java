package com.example;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitListener;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;

/** The listener of docs/reference.md ("Listeners"): refusals to an audit log, fallbacks to an alert log. */
class AuditListeners {

    private static final Logger audit = LoggerFactory.getLogger("audit");
    private static final Logger alerts = LoggerFactory.getLogger("alerts");

    @Bean
    RateLimitListener refusalsToTheAuditLog() {
        return new RateLimitListener() {
            @Override
            public Completion<Decision> deciding(List<LimitRequest> requests) {
                return new Completion<>() {
                    @Override
                    public void succeeded(Decision decision) {
                        if (!decision.allowed()) audit.info("refused by {}", decision.rejected());
                    }

                    @Override
                    public void failed(Throwable error) {}
                };
            }

            @Override
            public void fellBack(String what, FailureMode mode) {
                alerts.warn("{} decided without Redis: {}", what, mode);
            }
        };
    }
}
