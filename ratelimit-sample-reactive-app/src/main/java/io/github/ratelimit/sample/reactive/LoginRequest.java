package io.github.ratelimit.sample.reactive;

/** The body of POST /api/login. */
public record LoginRequest(String username, String password) {}
