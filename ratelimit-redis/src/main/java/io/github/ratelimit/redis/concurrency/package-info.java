/**
 * Concurrency limits on Redis: {@code RedisConcurrencyLimiter} and its scripts.
 */
@NullMarked
package io.github.ratelimit.redis.concurrency;

import org.jspecify.annotations.NullMarked;
