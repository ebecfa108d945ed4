/**
 * The runtime hints ahead-of-time processing needs.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.aot;

import org.jspecify.annotations.NullMarked;
