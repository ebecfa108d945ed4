/** Locks: the SPI of exclusive locks with a limited lifetime, its handle and its exceptions. */
@NullMarked
package io.github.ratelimit.core.locks;

import org.jspecify.annotations.NullMarked;
