/**
 * Internal: the starter's own wiring between its packages. Not an API; anything here may change in any release.
 */
package io.github.ratelimit.internal;
