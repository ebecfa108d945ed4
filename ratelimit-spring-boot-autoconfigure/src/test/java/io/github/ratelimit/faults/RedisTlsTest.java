package io.github.ratelimit.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.tokens.SingleUseTokens.IssuedToken;
import io.github.ratelimit.redis.limits.RedisRateLimiter;
import io.github.ratelimit.redis.tokens.RedisSingleUseTokens;
import io.github.ratelimit.test.support.RedisProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The scripts over TLS (rediss://) to a redis-server with a certificate made for the test. */
class RedisTlsTest {

    @TempDir
    Path dir;

    @Test
    void scriptsWorkOverTls() throws Exception {
        Path key = dir.resolve("redis.key");
        Path cert = dir.resolve("redis.crt");
        makeCertificate(key, cert);
        Path truststore = dir.resolve("trust.p12");
        assertThat(run(
                        "keytool",
                        "-importcert",
                        "-noprompt",
                        "-alias",
                        "redis",
                        "-file",
                        cert.toString(),
                        "-keystore",
                        truststore.toString(),
                        "-storetype",
                        "PKCS12",
                        "-storepass",
                        "changeit"))
                .isZero();
        int tlsPort = RedisProcess.freePort();
        try (RedisProcess redis = startTls(tlsPort, key, cert)) {
            Config config = new Config();
            config.setCodec(StringCodec.INSTANCE)
                    .setSslTruststore(truststore.toUri().toURL())
                    .setSslTruststorePassword("changeit");
            config.useSingleServer().setAddress("rediss://127.0.0.1:" + tlsPort);
            RedissonClient client = Redisson.create(config);
            try {
                RedisRateLimiter limiter = new RedisRateLimiter(
                        client,
                        "tls:",
                        new io.github.ratelimit.redis.RedisGuard(
                                java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)));
                RateLimit limit = RateLimit.of("tls", Algorithm.SLIDING_WINDOW, 1, 60_000);
                assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                                .allowed())
                        .isTrue();
                assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                                .allowed())
                        .isFalse();
                RedisSingleUseTokens tokens = new RedisSingleUseTokens(
                        client,
                        "tls:",
                        new io.github.ratelimit.redis.RedisGuard(
                                java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)));
                IssuedToken token = tokens.issue("tls", Map.of(), Duration.ofMinutes(1));
                assertThat(tokens.consume("tls", token.token()).consumed()).isTrue();
            } finally {
                client.shutdown();
            }
        }
    }

    /** spring.data.redis.ssl.bundle: the client the starter creates trusts what the named bundle trusts. */
    @Test
    void theStartersClientTrustsTheNamedSslBundle() throws Exception {
        Path key = dir.resolve("redis.key");
        Path cert = dir.resolve("redis.crt");
        makeCertificate(key, cert);
        int tlsPort = RedisProcess.freePort();
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class,
                        RateLimitRedissonAutoConfiguration.class,
                        RateLimitRedisAutoConfiguration.class))
                .withPropertyValues(
                        "spring.ssl.bundle.pem.redis.truststore.certificate=" + cert.toUri(),
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + tlsPort,
                        "spring.data.redis.ssl.bundle=redis");
        try (RedisProcess redis = startTls(tlsPort, key, cert)) {
            runner.run(context -> {
                assertThat(context).hasNotFailed();
                RedisRateLimiter limiter = new RedisRateLimiter(
                        context.getBean(RedissonClient.class),
                        "tls:",
                        new io.github.ratelimit.redis.RedisGuard(
                                java.time.Duration.ofSeconds(5), 5, java.time.Duration.ofSeconds(1)));
                RateLimit limit = RateLimit.of("tls-bundle", Algorithm.TOKEN_BUCKET, 1, 60_000);
                assertThat(limiter.tryAcquire(List.of(LimitRequest.of(limit, "u", 1)))
                                .allowed())
                        .isTrue();
            });
            // without the bundle the same server's certificate is not trusted
            runner.withConfiguration(AutoConfigurations.of(
                            RateLimitAutoConfiguration.class,
                            io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class))
                    .withPropertyValues(
                            "spring.data.redis.ssl.bundle=",
                            "spring.data.redis.ssl.enabled=true",
                            "ratelimit.redis.require-at-startup=true")
                    .run(context -> assertThat(context).hasFailed());
        }
        runner.withPropertyValues("spring.data.redis.ssl.bundle=missing")
                .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("missing"));
    }

    private static RedisProcess startTls(int tlsPort, Path key, Path cert) {
        return RedisProcess.start(
                List.of("tls-port " + tlsPort, "tls-cert-file " + cert, "tls-key-file " + key, "tls-auth-clients no"));
    }

    /** A self-signed certificate for 127.0.0.1, made by openssl (the test is skipped without it). */
    private static void makeCertificate(Path key, Path cert) throws Exception {
        assumeTrue(run("openssl", "version") == 0, "openssl is needed to make a test certificate");
        assertThat(run(
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-days",
                        "1",
                        "-subj",
                        "/CN=127.0.0.1",
                        "-addext",
                        "subjectAltName=IP:127.0.0.1",
                        "-keyout",
                        key.toString(),
                        "-out",
                        cert.toString()))
                .isZero();
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }
}
