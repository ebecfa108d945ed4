/** Limits rebuilt without a restart when Spring Cloud's refresh changes {@code ratelimit.*}. */
@NullMarked
package io.github.ratelimit.autoconfigure.refresh;

import org.jspecify.annotations.NullMarked;
