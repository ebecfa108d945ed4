/**
 * The auto-configuration of outbound rules ({@code ratelimit.client.rules}) on Boot's HTTP client builders.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.client;

import org.jspecify.annotations.NullMarked;
