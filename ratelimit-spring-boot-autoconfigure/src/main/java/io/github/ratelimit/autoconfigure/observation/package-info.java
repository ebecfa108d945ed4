/**
 * The observations (spans) of decisions, tokens, locks and concurrency limits.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
