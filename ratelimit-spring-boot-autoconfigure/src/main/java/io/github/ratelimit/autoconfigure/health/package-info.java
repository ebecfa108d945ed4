/**
 * The {@code ratelimit} health indicator.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
