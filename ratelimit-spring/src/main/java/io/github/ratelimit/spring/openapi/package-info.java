/**
 * What the limiter answers, in springdoc's description of the API.
 */
@NullMarked
package io.github.ratelimit.spring.openapi;

import org.jspecify.annotations.NullMarked;
