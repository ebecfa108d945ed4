/**
 * Limits named in {@code ratelimit.gateway.limits} on Spring Cloud Gateway routes, on server-webflux and server-webmvc.
 */
@NullMarked
package io.github.ratelimit.gateway;

import org.jspecify.annotations.NullMarked;
