/**
 * The WebFlux side: the rule filter, the caller of a request and the exception handler.
 */
@NullMarked
package io.github.ratelimit.spring.reactive;

import org.jspecify.annotations.NullMarked;
