/**
 * The Redis connection, the Redisson client and the wiring of the Redis implementations.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
