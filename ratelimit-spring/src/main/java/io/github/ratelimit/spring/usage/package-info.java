/**
 * What customers used of their limits, for the application to show them, and credits and resets made by application
 * code: {@code RateLimitUsage}.
 */
@NullMarked
package io.github.ratelimit.spring.usage;

import org.jspecify.annotations.NullMarked;
