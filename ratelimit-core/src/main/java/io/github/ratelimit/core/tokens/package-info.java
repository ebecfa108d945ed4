/** Single-use tokens: the SPI of a token that works exactly once, and its exception. */
@NullMarked
package io.github.ratelimit.core.tokens;

import org.jspecify.annotations.NullMarked;
