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
        @Nullable ConcurrencySpec concurrency) {}
