/**
 * One runner for every call the limits decide ({@code CallRunner}): the decision, the refusal, the admission's
 * RateLimit fields, the call, and its end (failures counted, charges taken), in the shape of the call's result. The
 * interceptor, both path-rule filters, the outbound clients and both gateways only translate between their framework
 * and it.
 */
@NullMarked
package io.github.ratelimit.spring.call;

import org.jspecify.annotations.NullMarked;
