/**
 * What the engine's rule vocabularies share and no application uses: the parts of a rule that path rules and outbound
 * client rules read alike ({@code RuleParts}), and the startup check that a SpEL expression names only variables that
 * will be there ({@code SpelVariables}), used by the filters' rules and the annotations' keys. Public so that {@code
 * client} and {@code internal} can use it; never API, and no other module uses it.
 */
@NullMarked
package io.github.ratelimit.spring.definition.internal;

import org.jspecify.annotations.NullMarked;
