package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.redisson.config.Config;
import org.springframework.mock.env.MockEnvironment;

class RedisConnectionSettingsTest {

    @Test
    void urlCarriesCredentialsDatabaseAndTls() {
        var url = RedisConnectionSettings.ParsedUrl.parse("rediss://app:s%40cret@cache.internal:6380/3");
        assertThat(url.address()).isEqualTo("rediss://cache.internal:6380");
        assertThat(url.username()).isEqualTo("app");
        assertThat(url.password()).isEqualTo("s@cret");
        assertThat(url.database()).isEqualTo(3);
    }

    @Test
    void passwordOnlyUrlAndDefaultPort() {
        var url = RedisConnectionSettings.ParsedUrl.parse("redis://:pw@localhost");
        assertThat(url.address()).isEqualTo("redis://localhost:6379");
        assertThat(url.username()).isNull();
        assertThat(url.password()).isEqualTo("pw");
    }

    @Test
    void wrongSchemeIsNamed() {
        assertThatThrownBy(() -> RedisConnectionSettings.ParsedUrl.parse("http://localhost:6379"))
                .hasMessageContaining("spring.data.redis.url must start with redis:// or rediss://");
    }

    @Test
    void bindsHostPortSslAndTimeouts() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("spring.data.redis.host", "redis.example")
                .withProperty("spring.data.redis.port", "6390")
                .withProperty("spring.data.redis.ssl.enabled", "true")
                .withProperty("spring.data.redis.timeout", "250ms")
                .withProperty("spring.data.redis.database", "2");
        Config config =
                RedisConnectionSettings.from(environment).toRedissonConfig(java.time.Duration.ofMillis(200), null);
        assertThat(config.useSingleServer().getAddress()).isEqualTo("rediss://redis.example:6390");
        assertThat(config.useSingleServer().getTimeout()).isEqualTo(250);
        assertThat(config.useSingleServer().getDatabase()).isEqualTo(2);
    }

    @Test
    void clusterNodesBecomeAClusterConfig() {
        MockEnvironment environment =
                new MockEnvironment().withProperty("spring.data.redis.cluster.nodes", "10.0.0.1:7000,10.0.0.2:7001");
        Config config =
                RedisConnectionSettings.from(environment).toRedissonConfig(java.time.Duration.ofMillis(200), null);
        assertThat(config.isClusterConfig()).isTrue();
        assertThat(config.useClusterServers().getNodeAddresses())
                .containsExactly("redis://10.0.0.1:7000", "redis://10.0.0.2:7001");
    }

    @Test
    void sentinelNeedsNodes() {
        MockEnvironment environment =
                new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "mymaster");
        assertThatThrownBy(() -> RedisConnectionSettings.from(environment)
                        .toRedissonConfig(java.time.Duration.ofMillis(200), null))
                .hasMessageContaining("spring.data.redis.sentinel.nodes must list at least one host:port");
    }
}
