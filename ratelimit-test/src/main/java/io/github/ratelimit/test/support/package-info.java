/**
 * Real Redis processes and clusters for tests, and helpers.
 */
@NullMarked
package io.github.ratelimit.test.support;

import org.jspecify.annotations.NullMarked;
