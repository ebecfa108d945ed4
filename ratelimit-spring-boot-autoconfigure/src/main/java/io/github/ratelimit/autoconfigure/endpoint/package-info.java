/**
 * The {@code ratelimits} actuator endpoint and operators' writes.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
