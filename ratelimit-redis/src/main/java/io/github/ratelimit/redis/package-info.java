/**
 * The Redis implementations of the core's SPIs, each decision one Lua script, with the budget and circuit breaker
 * every call to Redis goes through ({@code RedisGuard}).
 */
@NullMarked
package io.github.ratelimit.redis;

import org.jspecify.annotations.NullMarked;
