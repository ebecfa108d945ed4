/**
 * Rate limits on Redis: {@code RedisRateLimiter} and the scripts it assembles per shape of call from {@code decide/},
 * leased limits, operators' overrides and blocks, and the mirrors every instance keeps of them.
 */
@NullMarked
package io.github.ratelimit.redis.limits;

import org.jspecify.annotations.NullMarked;
