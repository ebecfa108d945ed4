package com.example;

import io.github.ratelimit.core.Usage;
import io.github.ratelimit.spring.usage.RateLimitUsage;
import org.springframework.stereotype.Service;

/** docs/limits.md's customer quota and credit, by the name of the plan group {@code monthly}. */
@Service
class Billing {

    private final RateLimitUsage usage;

    Billing(RateLimitUsage usage) {
        this.usage = usage;
    }

    String quotaLine(String apiKey) { // "used 1234 of 10000, resets 2026-12-01T00:00:00Z"
        Usage.Window month = usage.of("monthly", apiKey).windows().get(0);
        return "used " + month.used() + " of " + month.quota() + ", resets " + month.resetsAt();
    }

    void paid(String apiKey) { // a bill paid: 500 more calls this month, on every instance
        usage.credit("monthly", apiKey, 500, "billing");
    }
}
