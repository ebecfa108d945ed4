/**
 * Outbound rules on Boot's HTTP clients ({@code RestClient}, {@code WebClient}).
 */
@NullMarked
package io.github.ratelimit.autoconfigure.client;

import org.jspecify.annotations.NullMarked;
