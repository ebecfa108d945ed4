/**
 * The auto-configuration of the limiter's observations ({@code io.github.ratelimit.spring.observation}).
 */
@NullMarked
package io.github.ratelimit.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
