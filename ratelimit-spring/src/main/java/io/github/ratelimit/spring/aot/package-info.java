/**
 * The runtime hints ahead-of-time processing needs.
 */
@NullMarked
package io.github.ratelimit.spring.aot;

import org.jspecify.annotations.NullMarked;
