package com.example;

import io.github.ratelimit.annotation.CountOn;
import io.github.ratelimit.annotation.RateLimited;

/** docs/limits.md's calendar quota, penalty box and share, each on a method of its own. */
class QuotaExamples {

    record Login(String user) {}

    @RateLimited(limit = 1_000, period = "month", zone = "Europe/Berlin", key = "#apiKey") // from 00:00 on the 1st
    void monthly(String apiKey) {}

    @RateLimited(limit = 3, windowMs = 60_000, key = "#login.user()", countOn = CountOn.FAILURE, penaltyMs = 60_000)
    void login(Login login) {}

    @RateLimited(limit = 10, windowMs = 1_000, name = "fleet", key = "'fleet'", share = 0.6) // bulk: 6 of the 10
    void bulk() {}
}
