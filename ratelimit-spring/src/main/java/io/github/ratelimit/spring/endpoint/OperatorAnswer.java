package io.github.ratelimit.spring.endpoint;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What an operator's request to the limits answers: a JSON body (none for 204) and an HTTP status. The actuator
 * endpoint hands both on unchanged.
 *
 * @param body the answer, or null for none
 * @param status the HTTP status
 */
public record OperatorAnswer(@Nullable Map<String, Object> body, int status) {}
