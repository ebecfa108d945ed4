/**
 * Limits on gRPC services: {@link io.github.ratelimit.grpc.RateLimitServerInterceptor} decides the rules of
 * {@code ratelimit.grpc.rules} when a call starts, before its request message is read, and answers every refusal
 * (of a rule or of an annotation on the service's method) with the status gRPC clients expect
 * ({@link io.github.ratelimit.grpc.GrpcRefusals}).
 */
@NullMarked
package io.github.ratelimit.grpc;

import org.jspecify.annotations.NullMarked;
