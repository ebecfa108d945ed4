/**
 * The servlet side: the rule filter, the caller of a request and the MVC exception handlers.
 */
@NullMarked
package io.github.ratelimit.spring.servlet;

import org.jspecify.annotations.NullMarked;
