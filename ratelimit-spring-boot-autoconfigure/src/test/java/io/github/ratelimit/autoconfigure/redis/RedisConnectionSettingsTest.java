package io.github.ratelimit.autoconfigure.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.redis.RedisConnectionSettings;
import org.junit.jupiter.api.Test;
import org.redisson.config.Config;
import org.springframework.mock.env.MockEnvironment;

/** The standard properties bound to the Redis module's settings, without Spring Data Redis. */
class RedisConnectionSettingsTest {

    @Test
    void bindsHostPortSslAndConnectsLazilyWithTheHandshakeTimeout() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("spring.data.redis.host", "redis.example")
                .withProperty("spring.data.redis.port", "6390")
                .withProperty("spring.data.redis.ssl.enabled", "true")
                .withProperty("spring.data.redis.connect-timeout", "2500ms")
                .withProperty("spring.data.redis.database", "2");
        RedisConnectionSettings settings = RateLimitRedissonAutoConfiguration.settings(environment);
        Config config = settings.toRedissonConfig(settings.connectTimeout(null), null);
        assertThat(config.useSingleServer().getAddress()).isEqualTo("rediss://redis.example:6390");
        // the handshake (AUTH, SELECT, CLIENT SETNAME, PING) is held to the connect timeout, not the decision budget
        assertThat(config.useSingleServer().getTimeout()).isEqualTo(2500);
        assertThat(config.useSingleServer().getConnectTimeout()).isEqualTo(2500);
        assertThat(config.useSingleServer().getDatabase()).isEqualTo(2);
        assertThat(config.isLazyInitialization()).isTrue();
        assertThat(settings.connectTimeout(java.time.Duration.ofSeconds(7))).isEqualTo(java.time.Duration.ofSeconds(7));
        assertThat(RateLimitRedissonAutoConfiguration.settings(new MockEnvironment())
                        .connectTimeout(null))
                .isEqualTo(java.time.Duration.ofSeconds(3));
    }

    @Test
    void clusterNodesBecomeAClusterConfig() {
        MockEnvironment environment =
                new MockEnvironment().withProperty("spring.data.redis.cluster.nodes", "10.0.0.1:7000,10.0.0.2:7001");
        Config config = RateLimitRedissonAutoConfiguration.settings(environment)
                .toRedissonConfig(java.time.Duration.ofMillis(200), null);
        assertThat(config.isClusterConfig()).isTrue();
        assertThat(config.useClusterServers().getNodeAddresses())
                .containsExactly("redis://10.0.0.1:7000", "redis://10.0.0.2:7001");
    }

    @Test
    void sentinelNeedsNodes() {
        MockEnvironment environment =
                new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "mymaster");
        assertThatThrownBy(() -> RateLimitRedissonAutoConfiguration.settings(environment)
                        .toRedissonConfig(java.time.Duration.ofMillis(200), null))
                .hasMessageContaining("spring.data.redis.sentinel.nodes must list at least one host:port");
    }
}
