/**
 * What the engine's own feature packages share and no application uses: annotated methods compiled
 * ({@code MethodLimits}, {@code MethodDeclarations}, SpEL keys and fallbacks), the interceptors' return-type adapters
 * (in {@code internal.invocation}), the count of live instances, the listeners' wiring, the warm-up and the startup line.
 * Public so that those packages and the auto-configuration can use it; never API.
 */
@NullMarked
package io.github.ratelimit.spring.internal;

import org.jspecify.annotations.NullMarked;
