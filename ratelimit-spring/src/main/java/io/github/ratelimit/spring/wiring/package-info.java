/**
 * What an application that wires the engine itself declares beside the advisors and filters, as the auto-configuration
 * does: {@code RateLimitListeners} (every {@code RateLimitListener} bean told the events of the stores and the decision
 * flow), {@code LiveInstances} (how many instances local limits divide a limit by while Redis cannot decide), {@code
 * RateLimitWarmUp} (the decision path made ready before the first request) and {@code StartupSummary} (the one line at
 * startup). None is needed for a limit to hold; each makes what Boot's wiring gives available without Boot.
 */
@NullMarked
package io.github.ratelimit.spring.wiring;

import org.jspecify.annotations.NullMarked;
