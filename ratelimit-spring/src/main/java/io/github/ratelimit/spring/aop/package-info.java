/**
 * The advisors and interceptors of {@code @RateLimited}, {@code @SingleUse}, {@code @Locked} and
 * {@code @ConcurrencyLimited}, and their startup checks.
 */
@NullMarked
package io.github.ratelimit.spring.aop;

import org.jspecify.annotations.NullMarked;
