/**
 * Outbound rules on Spring's HTTP clients: an interceptor for {@code RestClient} and {@code RestTemplate}, a filter
 * for {@code WebClient}, both asking {@code OutboundLimits} before each call.
 */
@NullMarked
package io.github.ratelimit.spring.client;

import org.jspecify.annotations.NullMarked;
