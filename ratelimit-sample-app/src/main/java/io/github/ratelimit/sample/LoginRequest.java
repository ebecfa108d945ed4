package io.github.ratelimit.sample;

/** The body of POST /api/login. */
public record LoginRequest(String username, String password) {}
