/**
 * The in-memory store ({@code ratelimit.store=memory}), and the failure when no store is available.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.memory;

import org.jspecify.annotations.NullMarked;
