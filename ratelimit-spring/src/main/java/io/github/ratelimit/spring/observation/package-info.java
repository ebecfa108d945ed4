/**
 * The observations (spans) of decisions, tokens, locks and concurrency limits.
 */
@NullMarked
package io.github.ratelimit.spring.observation;

import org.jspecify.annotations.NullMarked;
