package io.github.ratelimit.spring.wiring;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.DeclaredLimits.DeclaredLimit;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/** Logs one line at startup: what is limited, on which Redis, with which failure modes. */
public final class StartupSummary implements ApplicationListener<ContextRefreshedEvent> {

    private static final Logger log = LoggerFactory.getLogger(StartupSummary.class);

    /**
     * What the line tells besides the limits.
     *
     * @param enabled whether rate limits are on ({@code ratelimit.enabled})
     * @param budget how long a call may wait for Redis ({@code ratelimit.redis.timeout})
     * @param failureMode what rate limits do while Redis cannot decide
     * @param shadow whether every limit only counts ({@code ratelimit.shadow})
     * @param keyPrefix the prefix of every key
     */
    public record Settings(
            boolean enabled, Duration budget, FailureMode failureMode, boolean shadow, String keyPrefix) {}

    private final ObjectProvider<DeclaredLimits> sources;
    private final Supplier<String> store;
    private final Settings settings;
    private boolean logged;

    /**
     * @param sources every source of declared limits
     * @param store the Redis the limits are decided on, as the line names it (never a password)
     * @param settings what else the line tells
     */
    public StartupSummary(ObjectProvider<DeclaredLimits> sources, Supplier<String> store, Settings settings) {
        this.sources = sources;
        this.store = store;
        this.settings = settings;
    }

    @Override
    public void onApplicationEvent(ContextRefreshedEvent event) {
        if (logged) {
            return;
        }
        logged = true;
        log.info(line());
    }

    /** The summary: what is limited and how, or, when rate limits are switched off, that they are and what still runs. */
    public String line() {
        String target = store.get();
        if (!settings.enabled()) {
            return "Rate limiting: OFF (ratelimit.enabled=false): @RateLimited, @ConcurrencyLimited and filter rules"
                    + " limit nothing; @SingleUse tokens and @Locked locks still apply; Redis " + target + "; budget "
                    + settings.budget().toMillis() + " ms; key prefix '" + settings.keyPrefix()
                    + "'";
        }
        List<DeclaredLimit> all =
                sources.stream().flatMap(s -> s.declaredLimits().stream()).toList();
        List<DeclaredLimit> rules = all.stream()
                .filter(d -> d.source().startsWith("ratelimit.filter.rules"))
                .toList();
        List<DeclaredLimit> gateway = all.stream()
                .filter(d -> d.source().startsWith("ratelimit.gateway.limits"))
                .toList();
        List<DeclaredLimit> annotated = all.stream()
                .filter(d -> !rules.contains(d) && !gateway.contains(d))
                .toList();
        long methods = annotated.stream().map(DeclaredLimit::source).distinct().count();
        return "Rate limiting: " + annotated.size() + " limits on " + methods + " methods, " + rules.size()
                + " filter limits" + (gateway.isEmpty() ? "" : ", " + gateway.size() + " gateway limits")
                + "; Redis " + target + "; budget "
                + settings.budget().toMillis()
                + " ms; while Redis cannot decide, rate limits "
                + switch (settings.failureMode()) {
                    case CLOSED -> "fail closed";
                    case OPEN -> "fail open";
                    default -> "are decided in memory, per instance";
                }
                + " (per-limit overrides apply)"
                + "; shadow " + (settings.shadow() ? "on for all" : "off") + "; key prefix '"
                + settings.keyPrefix() + "'";
    }
}
