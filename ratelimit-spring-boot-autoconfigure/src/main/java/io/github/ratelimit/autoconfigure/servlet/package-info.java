/**
 * The auto-configuration of the servlet side: the rule filter of {@code ratelimit.filter} and the MVC exception
 * handlers.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.servlet;

import org.jspecify.annotations.NullMarked;
