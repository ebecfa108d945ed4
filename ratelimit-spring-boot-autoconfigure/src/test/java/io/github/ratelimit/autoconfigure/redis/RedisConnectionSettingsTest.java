package io.github.ratelimit.autoconfigure.redis;

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
    void bindsHostPortSslAndConnectsLazilyWithTheHandshakeTimeout() {
        MockEnvironment environment = new MockEnvironment()
                .withProperty("spring.data.redis.host", "redis.example")
                .withProperty("spring.data.redis.port", "6390")
                .withProperty("spring.data.redis.ssl.enabled", "true")
                .withProperty("spring.data.redis.connect-timeout", "2500ms")
                .withProperty("spring.data.redis.database", "2");
        RedisConnectionSettings settings = RedisConnectionSettings.from(environment);
        Config config = settings.toRedissonConfig(settings.connectTimeout(null), null);
        assertThat(config.useSingleServer().getAddress()).isEqualTo("rediss://redis.example:6390");
        // the handshake (AUTH, SELECT, CLIENT SETNAME, PING) is held to the connect timeout, not the decision budget
        assertThat(config.useSingleServer().getTimeout()).isEqualTo(2500);
        assertThat(config.useSingleServer().getConnectTimeout()).isEqualTo(2500);
        assertThat(config.useSingleServer().getDatabase()).isEqualTo(2);
        assertThat(config.isLazyInitialization()).isTrue();
        assertThat(settings.connectTimeout(java.time.Duration.ofSeconds(7))).isEqualTo(java.time.Duration.ofSeconds(7));
        assertThat(RedisConnectionSettings.from(new MockEnvironment()).connectTimeout(null))
                .isEqualTo(java.time.Duration.ofSeconds(3));
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
