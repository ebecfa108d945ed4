/**
 * Spring test support: a real Redis for the test context, and the limiter in test slices.
 */
@NullMarked
package io.github.ratelimit.test;

import org.jspecify.annotations.NullMarked;
