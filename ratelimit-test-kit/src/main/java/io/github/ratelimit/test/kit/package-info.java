/**
 * The SPI test kit: abstract contracts every store passes.
 */
@NullMarked
package io.github.ratelimit.test.kit;

import org.jspecify.annotations.NullMarked;
