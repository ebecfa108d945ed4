/**
 * The limiter's meters: a listener of its events, and gauges read from Redis.
 */
@NullMarked
package io.github.ratelimit.spring.metrics;

import org.jspecify.annotations.NullMarked;
