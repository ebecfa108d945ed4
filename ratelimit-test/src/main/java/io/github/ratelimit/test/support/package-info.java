/**
 * Real Redis processes and clusters for an application's tests ({@code RedisProcess}, {@code RedisClusterProcess},
 * both a {@code RedisTopology}), a raw RESP client to read Redis as it is ({@code RawRedis}, which the processes use
 * to set up and stop their servers), the RateLimit fields of an answer read with an RFC 9651 parser
 * ({@code RateLimitFields}), and BlockHound for reactive tests ({@code NoBlockingCalls}).
 */
@NullMarked
package io.github.ratelimit.test.support;

import org.jspecify.annotations.NullMarked;
