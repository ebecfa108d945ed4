package io.github.ratelimit.autoconfigure.redis;

import io.github.ratelimit.autoconfigure.RateLimitProperties;
import io.github.ratelimit.autoconfigure.definition.DeclaredLimits;
import io.github.ratelimit.autoconfigure.definition.DeclaredLimits.DeclaredLimit;
import io.github.ratelimit.redis.RedisGuard;
import java.util.List;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextRefreshedEvent;

/** Logs one line at startup: what is limited, on which Redis, with which failure modes. */
final class StartupSummary implements ApplicationListener<ContextRefreshedEvent> {

    private static final Logger log = LoggerFactory.getLogger(StartupSummary.class);

    private final ObjectProvider<DeclaredLimits> sources;
    private final ObjectProvider<RedisGuard> guard;
    private final RateLimitProperties properties;
    private boolean logged;

    StartupSummary(
            ObjectProvider<DeclaredLimits> sources, ObjectProvider<RedisGuard> guard, RateLimitProperties properties) {
        this.sources = sources;
        this.guard = guard;
        this.properties = properties;
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
    String line() {
        RedisGuard redis = guard.getIfAvailable();
        String target = (redis == null ? "none" : redis.target())
                + (redis == null || redis.isConnected() ? "" : " (not connected yet: " + redis.lastError() + ")");
        if (!properties.isEnabled()) {
            return "Rate limiting: OFF (ratelimit.enabled=false): @RateLimited, @ConcurrencyLimited and filter rules"
                    + " limit nothing; @SingleUse tokens and @Locked locks still apply; Redis " + target + "; budget "
                    + properties.getRedis().getTimeout().toMillis() + " ms; key prefix '" + properties.getKeyPrefix()
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
                + properties.getRedis().getTimeout().toMillis()
                + " ms; while Redis cannot decide, rate limits "
                + switch (properties.getFailureMode()) {
                    case CLOSED -> "fail closed";
                    case OPEN -> "fail open";
                    default -> "are decided in memory, per instance";
                }
                + " (per-limit overrides apply)"
                + "; shadow " + (properties.isShadow() ? "on for all" : "off") + "; key prefix '"
                + properties.getKeyPrefix() + "'";
    }

    /** The kind and addresses of a client's Redis, for the log (never a password). */
    static String topology(RedissonClient client) {
        var config = client.getConfig();
        if (config.isClusterConfig()) {
            return "cluster " + config.useClusterServers().getNodeAddresses();
        }
        if (config.isSentinelConfig()) {
            return "sentinel master '" + config.useSentinelServers().getMasterName() + "'";
        }
        return config.useSingleServer().getAddress();
    }
}
