/**
 * What operators do with the limits, without the actuator: list the limits, read a client's state, reset counts,
 * override limits, block clients, lift penalties, read and free locks. The auto-configuration serves it as the
 * {@code ratelimits} actuator endpoint.
 */
@NullMarked
package io.github.ratelimit.spring.endpoint;

import org.jspecify.annotations.NullMarked;
