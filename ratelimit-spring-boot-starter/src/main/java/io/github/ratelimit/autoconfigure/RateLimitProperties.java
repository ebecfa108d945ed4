package io.github.ratelimit.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of the rate limiter, under {@code ratelimit.*}. The Redis connection is {@code spring.data.redis.*}. */
@ConfigurationProperties("ratelimit")
public class RateLimitProperties {

    /** Whether rate limiting is on. When off, annotations are ignored and no Redis client is created. */
    private boolean enabled = true;

    /**
     * Prefix of every Redis key the limiter writes: at most 64 letters, digits or '._:/-'. Change it to let
     * several applications share one Redis without sharing limits.
     */
    private String keyPrefix = "ratelimit:";

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }
}
