/**
 * The SPIs (rate limiter, single-use tokens, locks, concurrency limits), their values and exceptions, the listener SPI
 * and the HTTP fields of a decision, without Spring or Redisson.
 */
@NullMarked
package io.github.ratelimit.core;

import org.jspecify.annotations.NullMarked;
