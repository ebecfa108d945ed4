package io.github.ratelimit.sample;

import io.github.ratelimit.core.Usage;
import io.github.ratelimit.spring.usage.RateLimitUsage;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * A customer's own quota: {@code GET /api/usage} with {@code X-Api-Key} answers the key's monthly quota and its plan's
 * report limit, read without spending anything; {@code POST /api/usage/credit} (the operator, see
 * {@link OperatorSecurity}) grants a key more units of a limit for the current period, on every instance.
 */
@RestController
class UsageController {

    /** The plan groups an API key is counted under (application.yml: ratelimit.plans). */
    static final List<String> LIMITS = List.of("monthly", "reports");

    private final RateLimitUsage usage;

    UsageController(RateLimitUsage usage) {
        this.usage = usage;
    }

    @GetMapping("/api/usage")
    ResponseEntity<Map<String, Object>> usage(@RequestHeader(name = "X-Api-Key", required = false) String apiKey) {
        if (apiKey == null || apiKey.isBlank()) {
            return ResponseEntity.badRequest().body(Map.of("error", "send your API key as X-Api-Key"));
        }
        List<Map<String, Object>> limits = new ArrayList<>();
        for (String name : LIMITS) {
            limits.addAll(describe(usage.of(name, apiKey)));
        }
        return ResponseEntity.ok(Map.of("limits", limits));
    }

    /** What the operator posts: whose key, which limit, how many units. */
    record Credit(String key, String name, long units) {}

    @PostMapping("/api/usage/credit")
    ResponseEntity<Map<String, Object>> credit(@RequestBody Credit credit, Principal operator) {
        if (credit.key() == null || credit.key().isBlank() || credit.name() == null || credit.units() < 1) {
            return ResponseEntity.badRequest().body(Map.of("error", "give key, name and units (at least 1)"));
        }
        try {
            long granted = usage.credit(credit.name(), credit.key(), credit.units(), operator.getName());
            return ResponseEntity.ok(
                    Map.of("granted", granted, "limits", describe(usage.of(credit.name(), credit.key()))));
        } catch (RateLimitUsage.UnknownLimitException e) {
            return ResponseEntity.status(e.incomplete() ? 400 : 404).body(Map.of("error", e.getMessage()));
        }
    }

    /** Each window as the customer sees it: the limit's name, its quota, used, remaining, and when it resets. */
    static List<Map<String, Object>> describe(Usage read) {
        List<Map<String, Object>> windows = new ArrayList<>();
        for (Usage.Window window : read.windows()) {
            Map<String, Object> described = new LinkedHashMap<>();
            described.put("name", window.name());
            described.put("limit", window.quota());
            described.put("used", window.used());
            described.put("remaining", window.remaining());
            described.put("resetsAt", window.resetsAt().toString());
            windows.add(described);
        }
        return windows;
    }
}
