/**
 * Limits changed without a restart: compiled as a whole, then put in force as a whole or refused ({@code
 * LimitsRefresh}). The auto-configuration drives it from Spring Cloud's refresh of {@code ratelimit.*}.
 */
@NullMarked
package io.github.ratelimit.spring.refresh;

import org.jspecify.annotations.NullMarked;
