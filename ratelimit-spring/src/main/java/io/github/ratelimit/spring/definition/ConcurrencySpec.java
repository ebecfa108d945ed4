package io.github.ratelimit.spring.definition;

import java.time.Duration;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The concurrency limit of a rule, as bound from {@code ratelimit.client.rules[i].concurrency} (an outbound rule) or
 * {@code ratelimit.filter.rules[i].concurrency} (a path rule): a slot is taken once the rule's limits admitted the
 * call and given back with its answer; a call refused a slot is never run (an outbound call is never sent, a request
 * is answered 429). An adaptive limit learns its value from the answers' latency, one value for the fleet
 * (docs/adaptive.md): an answer of 429, 5xx or an error is a drop, never a fast sample. One limit per rule, whoever
 * calls (the rule's key does not split it).
 *
 * @param max the most calls in flight at once across the fleet; for an adaptive limit, the most it reaches
 * @param adaptive whether the limit is learnt from the answers' latency
 * @param min the least an adaptive limit goes down to (adaptive only)
 * @param initial where an adaptive limit starts, 0 for {@code min} (adaptive only)
 * @param tolerance the latency an adaptive limit tolerates, as a multiple of the no-load latency, more than 1 and at
 *     most 10 (adaptive only)
 * @param window an adaptive limit's sampling window, at least 10 ms (adaptive only)
 * @param lease how long a slot outlives an instance that stopped without giving it back (renewed while the call
 *     runs), at least 100 ms
 * @param maxLifetime the longest a call keeps its slot, renewals included; at least the lease
 */
public record ConcurrencySpec(
        int max,
        @DefaultValue("false") boolean adaptive,
        @DefaultValue("1") int min,
        @DefaultValue("0") int initial,
        @DefaultValue("2.0") double tolerance,
        @DefaultValue("1s") Duration window,
        @DefaultValue("10s") Duration lease,
        @DefaultValue("5m") Duration maxLifetime) {}
