/**
 * What both web stacks and the gateway share of HTTP, as one API (the rules they apply are in {@code
 * spring.definition}): the client's address behind trusted proxies ({@code ClientAddresses}), the answer of a
 * refusal ({@code Refusals}: 429, 409, 503, 400 as problem details) and the RateLimit fields of every answer ({@code
 * RateLimitHeaders}). Public for the engine's wiring and
 * the gateway module; not for applications, and it may change in any version before 1.0.
 */
@NullMarked
package io.github.ratelimit.spring.web;

import org.jspecify.annotations.NullMarked;
