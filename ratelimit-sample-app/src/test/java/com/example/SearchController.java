package com.example;

import io.github.ratelimit.annotation.RateLimited;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The README's first snippet: three windows, each for the address and the user, decided in one call. */
@RestController
class SearchController {

    record Result(String q) {}

    @GetMapping("/api/search")
    @RateLimited(
            limit = 10,
            windowMs = 1_000,
            key = {"#ip", "#userId ?: {}"},
            name = "search")
    @RateLimited(
            limit = 120,
            windowMs = 60_000,
            key = {"#ip", "#userId ?: {}"},
            name = "search")
    @RateLimited(
            limit = 240,
            windowMs = 3_600_000,
            key = {"#ip", "#userId ?: {}"},
            name = "search")
    Result search(@RequestParam String q, @RequestHeader(name = "X-User-Id", required = false) String userId) {
        return new Result(q);
    }
}
