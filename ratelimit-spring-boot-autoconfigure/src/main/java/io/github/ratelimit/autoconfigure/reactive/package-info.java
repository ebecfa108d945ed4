/**
 * The auto-configuration of the WebFlux side: the rule filter of {@code ratelimit.filter} and the exception handler.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.reactive;

import org.jspecify.annotations.NullMarked;
