/**
 * The auto-configuration's main package: the properties ({@code ratelimit.*}), the rule types bound in them, and the
 * decision flow's beans.
 */
@NullMarked
package io.github.ratelimit.autoconfigure;

import org.jspecify.annotations.NullMarked;
