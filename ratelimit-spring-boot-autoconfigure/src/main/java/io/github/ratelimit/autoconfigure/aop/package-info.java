/**
 * The auto-configuration of the annotations: the advisors of {@code io.github.ratelimit.spring.aop} and the handler
 * parameters they fill, as beans an application may replace.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.aop;

import org.jspecify.annotations.NullMarked;
