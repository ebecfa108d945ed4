/**
 * The rate limiter in memory: what decides while Redis cannot, and the store of {@code ratelimit.store=memory}.
 */
@NullMarked
package io.github.ratelimit.local;

import org.jspecify.annotations.NullMarked;
