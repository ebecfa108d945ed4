package io.github.ratelimit.core;

import org.jspecify.annotations.Nullable;

/**
 * Who a limit counts: one kind of key, resolved for the caller of each call. The starter's own kinds are {@code ip},
 * {@code principal}, {@code client} (the principal, else the IP address) and {@code header:<Name>}; an application
 * adds its own by declaring a bean of this type and naming the bean in an annotation's {@code key}
 * ({@code @RateLimited(key = "tenant")}) or a rule's {@code key} ({@code key: tenant}), for example the tenant of a
 * JWT claim or an OAuth client id:
 *
 * <pre>{@code
 * @Bean
 * KeyResolver tenant() {
 *     return caller -> caller.header("X-Tenant-Id");
 * }
 * }</pre>
 *
 * <p>It runs on the calling thread, and on an event loop for a reactive request: it must not block. Counters of
 * different kinds are kept apart even for equal values, and only a hash of the value reaches Redis.
 */
@FunctionalInterface
public interface KeyResolver {

    /**
     * This caller's value under this key, or null (or blank) when the call has none: an annotated call is then refused
     * with 400 (never counted in a bucket shared by every caller), a rule does what its {@code missing-key} says.
     */
    @Nullable
    String resolve(CallerContext caller);
}
