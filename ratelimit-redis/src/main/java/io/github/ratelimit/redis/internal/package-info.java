/**
 * What the capability packages of {@code ratelimit-redis} share: scripts and how they are sent, keys, the budget's
 * timer and give-backs. Public for those packages only: not API, and no public signature outside names it.
 */
@NullMarked
package io.github.ratelimit.redis.internal;

import org.jspecify.annotations.NullMarked;
