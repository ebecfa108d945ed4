/**
 * What several modules of the limiter share (address parsing, throttled logs, futures). Public so that the other
 * modules can use it; never API: it may change in any version, and no public signature of the API mentions it.
 */
@NullMarked
package io.github.ratelimit.core.internal;

import org.jspecify.annotations.NullMarked;
