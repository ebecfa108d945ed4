/**
 * The servlet side: the rule filter, the caller of a request and the MVC exception handlers.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.servlet;

import org.jspecify.annotations.NullMarked;
