/**
 * The limiter in memory: the rate limiter that decides while Redis cannot, and the store of
 * {@code ratelimit.store=memory} (rate limits, single-use tokens, locks and concurrency limits of one instance).
 */
@NullMarked
package io.github.ratelimit.local;

import org.jspecify.annotations.NullMarked;
