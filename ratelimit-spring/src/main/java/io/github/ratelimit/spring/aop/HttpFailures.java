package io.github.ratelimit.spring.aop;

import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/** Whether a method's result is a failure for {@code countOn = FAILURE}: an HTTP response of status 400 or more. */
final class HttpFailures {

    private static final boolean WEB =
            ClassUtils.isPresent("org.springframework.http.ResponseEntity", HttpFailures.class.getClassLoader());

    private HttpFailures() {}

    static boolean isFailure(@Nullable Object result) {
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
