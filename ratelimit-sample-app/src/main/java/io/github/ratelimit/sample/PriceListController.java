package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.RateLimited;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The limits of an API product's price list and runbook: a quota per calendar month by plan, a penalty box after
 * failed logins, and a budget whose last share is kept for critical calls.
 */
@RestController
class PriceListController {

    /**
     * Per API key (X-Api-Key) and calendar month in UTC, by the key's plan (application.yml: the plan group
     * {@code monthly}): free 1,000, pro 100,000, any other key 3; the 4th call of a month answers 429 with
     * Retry-After counting to 00:00 UTC on the 1st of the next month. No key is a 400.
     */
    @GetMapping("/api/monthly")
    @RateLimited(plans = "monthly", key = "#apiKey")
    Map<String, Object> monthly(@RequestHeader(name = "X-Api-Key", required = false) String apiKey) {
        return Map.of("quota", "monthly");
    }

    /**
     * The PIN is 0000 for everyone (200); a wrong one is a 401. Three wrong PINs for one user within a minute put that
     * user in a 60-second penalty box: 429 even with the right PIN, on every instance; other users are not affected.
     */
    @PostMapping("/api/pin-login")
    @RateLimited(
            limit = 3,
            windowMs = 60_000,
            name = "pin-login",
            key = "#login.user()",
            countOn = CountOn.FAILURE,
            penaltyMs = 60_000)
    ResponseEntity<Map<String, Object>> pinLogin(@RequestBody PinLogin login) {
        return "0000".equals(login.pin())
                ? ResponseEntity.ok(Map.of("user", login.user()))
                : ResponseEntity.status(HttpStatus.UNAUTHORIZED).body(Map.of("error", "wrong PIN"));
    }

    /**
     * Bulk work shares the budget {@code fleet}, 10 calls per second for all callers together, with critical work, and
     * may use 60 % of it: 20 bulk calls at once admit 6.
     */
    @GetMapping("/api/fleet/bulk")
    @RateLimited(limit = 10, windowMs = 1_000, name = "fleet", key = "'fleet'", share = 0.6)
    Map<String, Object> bulk() {
        return Map.of("work", "bulk");
    }

    /** Critical work may use all of the budget {@code fleet}: the last 4 of each second's 10 are its alone. */
    @GetMapping("/api/fleet/critical")
    @RateLimited(limit = 10, windowMs = 1_000, name = "fleet", key = "'fleet'", share = 1.0)
    Map<String, Object> critical() {
        return Map.of("work", "critical");
    }
}
