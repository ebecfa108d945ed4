/**
 * How limits are declared and compiled, in one vocabulary (docs/design.md, "The limit vocabulary"): a {@code
 * LimitDefinition} is one declaration (an annotation or a rule) compiled; a {@code FilterRule} is one rule of the
 * properties, compiled into a definition with its matcher; {@code PathRules} are the servlet and WebFlux filters'
 * rules and how they match a request; {@code NamedLimits} the rules gateway routes name; {@code DeclaredLimits} every
 * declaration, as operators see it. Keys ({@code KeyResolvers}) and plans ({@code Plans}) are named here too. Used by
 * both web stacks and the gateway module: public for the engine's wiring, the auto-configuration and the gateway module, not for applications; it may change in any
 * version before 1.0.
 */
@NullMarked
package io.github.ratelimit.spring.definition;

import org.jspecify.annotations.NullMarked;
