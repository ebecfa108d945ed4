/**
 * The connection to Redis: {@code RedisConnector}, the latency budget and circuit breaker every call goes through
 * ({@code RedisGuard}), and the instances a fleet counts ({@code RedisInstances}). The capabilities are packages of
 * their own: {@code limits}, {@code locks}, {@code tokens} and {@code concurrency}.
 */
@NullMarked
package io.github.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
