package io.github.ratelimit.spring.definition;

import io.github.ratelimit.annotation.FailureMode;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;

/**
 * One rule of the outbound limits, exactly as bound from {@code ratelimit.client.rules[i]}: calls that the
 * application's {@code RestClient}, {@code RestTemplate} and {@code WebClient} (built from Boot's builders) send to
 * matching URLs share one budget across every instance. Checked when the application starts (an invalid value fails
 * the start naming the property).
 *
 * @param name the budget's name (letters, digits, {@code ._:/-}), required
 * @param hosts host names the rule applies to, exact or {@code *.example.com}; empty for any host
 * @param paths {@code PathPattern}s of the URL's path, each starting with {@code /}; empty for any path
 * @param methods HTTP methods it applies to; empty for all
 * @param limits the limits, all decided together for every matching call; one at least, unless the rule has a
 *     {@code concurrency} limit
 * @param maxWait ({@code wait}) how long a refused call waits for its slot before it fails; none by default
 * @param failureMode what calls meet when Redis cannot decide: {@code local}, {@code open}, {@code closed};
 *     {@code default}: {@code ratelimit.failure-mode}
 * @param concurrency a limit of the rule's calls in flight across every instance, fixed or adaptive; none by default
 */
public record ClientRuleSpec(
        String name,
        List<String> hosts,
        List<String> paths,
        List<String> methods,
        List<FilterRuleSpec.LimitSpec> limits,
        @Name("wait") Duration maxWait,
        @DefaultValue("default") FailureMode failureMode,
        @Nullable ConcurrencySpec concurrency) {

    /**
     * The concurrency limit of an outbound rule, as bound from {@code ratelimit.client.rules[i].concurrency}: a slot is
     * taken before a matching call is sent (after the rule's limits admitted it) and given back with its answer; a
     * call refused a slot is never sent and fails with {@code ConcurrencyLimitExceededException}. An adaptive limit
     * learns its value from the answers' latency, one value for the fleet (docs/adaptive.md): an answer of 429, 5xx or
     * an I/O error is a drop, never a fast sample.
     *
     * @param max the most calls in flight at once across the fleet; for an adaptive limit, the most it reaches
     * @param adaptive whether the limit is learnt from the answers' latency
     * @param min the least an adaptive limit goes down to (adaptive only)
     * @param initial where an adaptive limit starts, 0 for {@code min} (adaptive only)
     * @param tolerance the latency an adaptive limit tolerates, as a multiple of the no-load latency, more than 1 and
     *     at most 10 (adaptive only)
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
}
