/**
 * The auto-configuration of the limiter's meters ({@code io.github.ratelimit.spring.metrics}) on every Micrometer
 * registry.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
