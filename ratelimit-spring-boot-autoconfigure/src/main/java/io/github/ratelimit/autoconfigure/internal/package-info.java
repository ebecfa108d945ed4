/**
 * What several feature packages of the auto-configuration share. Public so that they can use it; never API: it may
 * change in any version, and no public signature of the API mentions it.
 */
package io.github.ratelimit.autoconfigure.internal;
