/**
 * The auto-configuration of {@code RateLimitUsage}: customers' use of their limits, credits and resets.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.usage;

import org.jspecify.annotations.NullMarked;
