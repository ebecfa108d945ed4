package io.github.ratelimit.spring.internal;

import io.github.ratelimit.decision.RateLimitDecisions;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Which HTTP answers are failures, for limits that count failures only ({@code countOn = FAILURE}): a status of 400 or
 * more, whether a filter tells it as a number (the response's status, {@link #STATUS}) or a method returns it in a
 * {@code ResponseEntity} ({@link #isFailedResponse}). A method's other results are never failures, numbers included.
 */
public final class HttpFailures {

    /**
     * What follows a call that a filter answers over HTTP and whose outcome it tells as the response's status (an
     * {@code Integer}): 400 or more is a failure, and failures take what the rules that count them ask.
     */
    public static final RateLimitDecisions.After STATUS = new RateLimitDecisions.After() {
        @Override
        public boolean failure(@Nullable Object status) {
            return status instanceof Integer code && code >= 400;
        }
    };

    private static final boolean WEB =
            ClassUtils.isPresent("org.springframework.http.ResponseEntity", HttpFailures.class.getClassLoader());

    private HttpFailures() {}

    /** Whether a method's result is a failing answer: a {@code ResponseEntity} of status 400 or more. */
    public static boolean isFailedResponse(@Nullable Object result) {
        return WEB && result != null && Web.isErrorResponse(result);
    }

    /** Loaded only when Spring Web is present. */
    private static final class Web {
        static boolean isErrorResponse(Object result) {
            return result instanceof org.springframework.http.ResponseEntity<?> entity
                    && entity.getStatusCode().value() >= 400;
        }
    }
}
