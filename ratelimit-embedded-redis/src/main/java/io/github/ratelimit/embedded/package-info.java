/**
 * A real {@code redis-server} for the samples and local development; never for production.
 */
@NullMarked
package io.github.ratelimit.embedded;

import org.jspecify.annotations.NullMarked;
