/**
 * What both web stacks and the gateway share of HTTP, as one API (the rules they apply are in {@code
 * autoconfigure.definition}): the client's address behind trusted proxies ({@code ClientAddresses}, {@code ForwardedHeadersCheck}), the answer of a
 * refusal ({@code Refusals}: 429, 409, 503, 400 as problem details) and the RateLimit fields of every answer ({@code
 * RateLimitHeaders}), and waiting for Redis without blocking ({@code FromRedis}). Public for the starter's modules;
 * not for applications, and it may change in any version before 1.0.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
