/**
 * Limits on Spring for GraphQL controllers: {@link io.github.ratelimit.graphql.GraphQlRefusals} answers the refusals of
 * the annotations on {@code @QueryMapping}, {@code @MutationMapping} and {@code @SchemaMapping} methods as GraphQL
 * errors of the field they refused.
 */
@NullMarked
package io.github.ratelimit.graphql;

import org.jspecify.annotations.NullMarked;
