/**
 * What the engine's own feature packages share and no application uses: annotated methods compiled
 * ({@code MethodLimits}, {@code MethodDeclarations}, SpEL keys and fallbacks), the interceptors' return-type adapters
 * (in {@code internal.invocation}), waiting for Redis without blocking ({@code FromRedis}). Public so that those
 * packages can use it; never API, and no other module uses it.
 */
@NullMarked
package io.github.ratelimit.spring.internal;

import org.jspecify.annotations.NullMarked;
