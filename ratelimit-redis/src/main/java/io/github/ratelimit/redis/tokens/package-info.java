/**
 * Single-use tokens on Redis: {@code RedisSingleUseTokens} and its scripts.
 */
@NullMarked
package io.github.ratelimit.redis.tokens;

import org.jspecify.annotations.NullMarked;
