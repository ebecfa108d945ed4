package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.config.Config;

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
                .hasMessage("spring.data.redis.url must start with redis:// or rediss:// (such as"
                        + " redis://localhost:6379), but was 'http://localhost:6379'");
    }

    /** What a user types without a scheme is shown as typed (a URI parser reads {@code localhost} as the scheme). */
    @Test
    void aUrlWithoutSchemeIsShownAsTyped() {
        assertThatThrownBy(() -> RedisConnectionSettings.ParsedUrl.parse("localhost:6379"))
                .hasMessage("spring.data.redis.url must start with redis:// or rediss:// (such as"
                        + " redis://localhost:6379), but was 'localhost:6379'");
        assertThatThrownBy(() -> RedisConnectionSettings.ParsedUrl.parse("cache.internal"))
                .hasMessageEndingWith("but was 'cache.internal'");
    }

    /** A password in a URL with the wrong scheme is never shown. */
    @Test
    void aWrongUrlIsShownWithoutItsPassword() {
        assertThatThrownBy(() -> RedisConnectionSettings.ParsedUrl.parse("http://app:s3cret@cache.internal:6379"))
                .hasMessageEndingWith("but was 'http://…@cache.internal:6379'")
                .message()
                .doesNotContain("s3cret");
    }

    @Test
    void urlWinsOverHostAndItsCredentialsOverTheProperties() {
        RedisConnectionSettings settings = new RedisConnectionSettings(
                "redis://app:pw@cache.internal:6380/4",
                "ignored",
                7000,
                1,
                "other",
                "other",
                null,
                null,
                "svc",
                null,
                null);
        Config config = settings.toRedissonConfig(Duration.ofMillis(200), null);
        assertThat(config.useSingleServer().getAddress()).isEqualTo("redis://cache.internal:6380");
        assertThat(config.useSingleServer().getDatabase()).isEqualTo(4);
        assertThat(config.getUsername()).isEqualTo("app");
        assertThat(config.getPassword()).isEqualTo("pw");
        assertThat(config.useSingleServer().getClientName()).isEqualTo("svc");
        assertThat(config.useSingleServer().getRetryAttempts()).isZero();
        assertThat(settings.describe()).isEqualTo("redis://cache.internal:6380");
    }

    @Test
    void defaultsAreLocalhostAndAnIpv6HostIsBracketed() {
        assertThat(RedisConnectionSettings.defaults().describe()).isEqualTo("redis://localhost:6379");
        assertThat(RedisConnectionSettings.defaults().connectTimeout(null)).isEqualTo(Duration.ofSeconds(3));
        RedisConnectionSettings ipv6 =
                new RedisConnectionSettings(null, "::1", 6390, null, null, null, null, null, null, null, null);
        assertThat(ipv6.describe()).isEqualTo("redis://[::1]:6390");
    }

    @Test
    void aNegativeConnectTimeoutIsNamed() {
        assertThatThrownBy(() -> RedisConnectionSettings.defaults().toRedissonConfig(Duration.ofMillis(-1), null))
                .hasMessageContaining("ratelimit.redis.connect-timeout must be between 0");
    }

    @Test
    void sentinelNodesGetTheSchemeOfTls() {
        RedisConnectionSettings settings = new RedisConnectionSettings(
                null,
                null,
                null,
                2,
                null,
                null,
                new RedisConnectionSettings.Ssl(true, null),
                null,
                null,
                new RedisConnectionSettings.Sentinel("mymaster", List.of("10.0.0.1:26379"), "s", "spw"),
                null);
        Config config = settings.toRedissonConfig(Duration.ofMillis(200), null);
        assertThat(config.useSentinelServers().getSentinelAddresses()).containsExactly("rediss://10.0.0.1:26379");
        assertThat(config.useSentinelServers().getMasterName()).isEqualTo("mymaster");
        assertThat(config.useSentinelServers().getDatabase()).isEqualTo(2);
    }
}
