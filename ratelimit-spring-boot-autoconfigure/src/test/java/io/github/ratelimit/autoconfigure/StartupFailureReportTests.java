package io.github.ratelimit.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import io.github.ratelimit.test.support.RedisProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * What a user sees when the start fails: Boot's "APPLICATION FAILED TO START" report, naming the property, the value
 * and the rule in its first lines, rather than a stack trace seven causes deep.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupFailureReportTests {

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        RateLimitRedissonAutoConfiguration.class,
        RateLimitRedisAutoConfiguration.class,
        RateLimitAutoConfiguration.class,
        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class
    })
    static class App {}

    static void start(String... properties) {
        new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .run()
                .close();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "ratelimit.key-prefix=bad prefix*       | ratelimit.keyPrefix              | must be at most 64 of",
                "ratelimit.redis.failure-threshold=-1   | ratelimit.redis.failureThreshold | must be at least 1",
                "ratelimit.redis.timeout=0              | ratelimit.redis.timeout          | must be at least 1 ms",
                "ratelimit.client.trusted-proxies=not-an-ip | ratelimit.client.trustedProxies[0] | must be an IP address",
                "ratelimit.client.ipv6-prefix-length=500 | ratelimit.client.ipv6PrefixLength | must be between 1 and 128",
                "ratelimit.exempt.ips=10.0.0.0/99       | ratelimit.exempt.ips[0]          | must be an IP address",
                "ratelimit.client.max-pause=0            | ratelimit.client.maxPause        | must be at least 1 ms",
            })
    void invalidPropertiesAreReportedByName(String property, String reported, String rule, CapturedOutput output) {
        assertThatThrownBy(
                () -> start("spring.data.redis.url=" + SharedRedis.get().url(), property));
        String report = output.getOut() + output.getErr();
        int block = report.indexOf("APPLICATION FAILED TO START");
        assertThat(block).as("Boot's failure report").isNotNegative();
        String firstLines = report.substring(block, Math.min(report.length(), block + 800));
        assertThat(firstLines)
                .contains(reported)
                .contains(rule)
                .contains(property.substring(property.indexOf('=') + 1));
    }

    @Test
    void aMalformedUrlIsReportedByName(CapturedOutput output) {
        assertThatThrownBy(() -> start("spring.data.redis.url=http://127.0.0.1:6379"));
        String report = output.getOut() + output.getErr();
        int block = report.indexOf("APPLICATION FAILED TO START");
        assertThat(block).isNotNegative();
        assertThat(report.substring(block))
                .contains("spring.data.redis.url must start with redis:// or rediss://")
                .contains("redis://[[user]:password@]host[:port][/database]");
    }

    @Test
    void redisRequiredAtStartupAndNotThereIsReportedWithTheAddressAndTheSwitch(CapturedOutput output) {
        int port = RedisProcess.freePort();
        assertThatThrownBy(() ->
                start("spring.data.redis.url=redis://127.0.0.1:" + port, "ratelimit.redis.require-at-startup=true"));
        String report = output.getOut() + output.getErr();
        int block = report.indexOf("APPLICATION FAILED TO START");
        assertThat(block).isNotNegative();
        assertThat(report.substring(block))
                .contains("Rate limiting could not reach Redis redis://127.0.0.1:" + port + " at startup")
                .contains("connection refused")
                .contains("ratelimit.redis.require-at-startup=false");
    }
}
