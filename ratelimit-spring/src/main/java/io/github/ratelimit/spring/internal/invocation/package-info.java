/**
 * How an intercepted method runs after a step that asks Redis (a decision, a token consumption, a lock, a slot): in
 * the shape of its return type ({@code ReturnShape}, a strategy per shape), with the step's end told exactly once
 * ({@code DeferredInvocation}). What the engine's interceptors share; never API.
 */
@NullMarked
package io.github.ratelimit.spring.internal.invocation;

import org.jspecify.annotations.NullMarked;
