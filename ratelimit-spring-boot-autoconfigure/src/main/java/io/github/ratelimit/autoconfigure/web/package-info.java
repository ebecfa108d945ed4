/**
 * The check, at startup on both web stacks, that forwarded headers are trusted on purpose.
 */
@NullMarked
package io.github.ratelimit.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
