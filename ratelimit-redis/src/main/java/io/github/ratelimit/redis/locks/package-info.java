/**
 * Locks on Redis: {@code RedisLockManager}, its fencing tokens, renewals and the scripts beside it.
 */
@NullMarked
package io.github.ratelimit.redis.locks;

import org.jspecify.annotations.NullMarked;
