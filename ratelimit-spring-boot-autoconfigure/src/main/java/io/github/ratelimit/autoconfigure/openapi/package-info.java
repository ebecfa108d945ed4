/**
 * The auto-configuration of the limiter's part in springdoc's description of the API.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.openapi;

import org.jspecify.annotations.NullMarked;
