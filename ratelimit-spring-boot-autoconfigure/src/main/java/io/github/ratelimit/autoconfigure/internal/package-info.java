/**
 * What the auto-configuration's own feature packages share and no other module uses: annotated methods compiled
 * ({@code MethodLimits}, {@code MethodDeclarations}, SpEL keys and fallbacks), the interceptors' return-type adapters
 * ({@code DeferredInvocation}) and the count of live instances. Public so that those packages can use it; never API
 * (an architecture test pins that the gateway module does not use it).
 */
@NullMarked
package io.github.ratelimit.autoconfigure.internal;

import org.jspecify.annotations.NullMarked;
