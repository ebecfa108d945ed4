/**
 * The auto-configuration's main package: the properties ({@code ratelimit.*}), their checks and failure reports, the
 * limits a refresh rebuilds, and the decision flow's beans. The engine it wires is {@code ratelimit-spring}'s.
 */
@NullMarked
package io.github.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;
