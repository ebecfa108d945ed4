/**
 * The one decision flow every integration calls ({@code RateLimitDecisions}) and one call's way through it, from its
 * decision to its end ({@code DecidedCall}).
 */
@NullMarked
package io.github.ratelimit.decision;

import org.jspecify.annotations.NullMarked;
