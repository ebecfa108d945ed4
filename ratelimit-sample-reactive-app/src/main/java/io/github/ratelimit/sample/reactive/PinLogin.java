package io.github.ratelimit.sample.reactive;

/** The body of POST /api/pin-login. */
public record PinLogin(String user, String pin) {}
