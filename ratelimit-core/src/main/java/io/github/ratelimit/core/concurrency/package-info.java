/** Concurrency limits: the SPI of slots held for the length of a call, and its exception. */
@NullMarked
package io.github.ratelimit.core.concurrency;

import org.jspecify.annotations.NullMarked;
