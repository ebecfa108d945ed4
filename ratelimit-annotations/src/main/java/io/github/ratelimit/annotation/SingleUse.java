package io.github.ratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The method runs only with a valid single-use token for {@link #purpose()}, and consumes it: the first call
 * with a token succeeds and every later one is refused, even when they arrive at the same moment on different
 * instances. The token is consumed, in one atomic Redis script call, before the method body runs.
 *
 * <pre>{@code
 * @GetMapping("/api/spawn-vm")
 * @SingleUse(purpose = "spawn-vm", token = "#token")
 * Map<String, String> spawn(@RequestParam(required = false) String token, TokenConsumption consumed) {
 *     return consumed.metadata();
 * }
 * }</pre>
 *
 * <p>A parameter of type {@code TokenConsumption} receives the consumed token's metadata. A refused call
 * throws {@code SingleUseTokenException} carrying the reason (missing, malformed, unknown or expired, already
 * used); in a Spring MVC application the starter answers 400, 404 or 409.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface SingleUse {

    /**
     * What the token is for; a token issued for one purpose is unknown to every other. Letters, digits and
     * {@code . _ - : /}, at most 100 characters.
     */
    String purpose();

    /**
     * Where the token comes from: a SpEL expression over the method's parameters ({@code #token}), or the
     * request ({@code #request.getHeader('X-Token')}). Null or blank means the token is missing.
     */
    String token() default "#token";

    /** What happens to the consumed token when the method then throws. */
    OnFailure onFailure() default OnFailure.KEEP_CONSUMED;

    /** What happens to a consumed token when the method fails. */
    enum OnFailure {

        /** The token stays consumed: the safest choice when the method may have had effects before failing. */
        KEEP_CONSUMED,

        /**
         * The use is given back, so the token can be tried again: for methods that fail before any effect
         * (a validation error, a refused downstream call).
         */
        RELEASE
    }
}
