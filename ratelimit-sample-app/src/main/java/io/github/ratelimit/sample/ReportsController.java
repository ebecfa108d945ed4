package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Limited per API key by the caller's plan (application.yml: ratelimit.plans): sample-free-key is on free (2 per
 * 10 s), sample-pro-key on pro (20 per 10 s), any other key on the default plan (1 per 10 s); no key is a 400.
 */
@RestController
class ReportsController {

    @GetMapping("/api/reports")
    @RateLimited(plans = "reports", key = "#apiKey")
    Map<String, Object> reports(@RequestHeader(name = "X-API-Key", required = false) String apiKey) {
        return Map.of("report", "monthly");
    }
}
