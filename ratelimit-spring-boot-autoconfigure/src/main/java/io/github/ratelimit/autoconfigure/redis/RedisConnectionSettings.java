package io.github.ratelimit.autoconfigure.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.core.env.Environment;

/**
 * The standard {@code spring.data.redis.*} properties, read without depending on Spring Data Redis, and
 * turned into a Redisson configuration.
 *
 * <p>Why not only Boot's {@code DataRedisConnectionDetails}: it lives in {@code spring-boot-data-redis}, which brings
 * Spring Data Redis and auto-configures a Lettuce connection factory, a second Redis client the application did not
 * ask for. When that module is on the classpath its connection-details bean is used and wins over these properties
 * (a Testcontainers {@code @ServiceConnection}, Docker Compose, a user's bean; see {@code ConnectionDetailsSettings});
 * without it, these properties are read here, with the same names and meanings.
 */
record RedisConnectionSettings(
        @Nullable String url,
        @DefaultValue("localhost") String host,
        @DefaultValue("6379") int port,
        @DefaultValue("0") int database,
        @Nullable String username,
        @Nullable String password,
        @Nullable Ssl ssl,
        @Nullable Duration connectTimeout,
        @Nullable String clientName,
        @Nullable Sentinel sentinel,
        @Nullable Cluster cluster) {

    /** {@code enabled} defaults to whether a {@code bundle} is named, as in Spring Boot. */
    record Ssl(@Nullable Boolean enabled, @Nullable String bundle) {}

    record Sentinel(String master, List<String> nodes, @Nullable String username, @Nullable String password) {}

    record Cluster(List<String> nodes) {}

    static RedisConnectionSettings from(Environment environment) {
        return Binder.get(environment)
                .bind("spring.data.redis", Bindable.of(RedisConnectionSettings.class))
                .orElseGet(() -> new RedisConnectionSettings(
                        null, "localhost", 6379, 0, null, null, null, null, null, null, null));
    }

    /**
     * The time allowed to connect and for the handshake: {@code ratelimit.redis.connect-timeout}, else
     * {@code spring.data.redis.connect-timeout}, else 3 s.
     */
    Duration connectTimeout(@Nullable Duration configured) {
        return connectTimeout(configured, connectTimeout);
    }

    /** The rule above, for a caller that has only the two values. */
    static Duration connectTimeout(@Nullable Duration configured, @Nullable Duration springConnectTimeout) {
        if (configured != null) {
            return configured;
        }
        return springConnectTimeout != null ? springConnectTimeout : Duration.ofSeconds(3);
    }

    boolean sslEnabled() {
        return ssl != null && (ssl.enabled() != null ? ssl.enabled() : sslBundle() != null);
    }

    /** The name of the SSL bundle to trust (and present), from {@code spring.data.redis.ssl.bundle}, or null. */
    @Nullable
    String sslBundle() {
        return ssl == null || ssl.bundle() == null || ssl.bundle().isBlank() ? null : ssl.bundle();
    }

    /** What the client connects to, for logs and failure reports (never the password). */
    String describe() {
        if (sentinel != null && sentinel.master() != null) {
            return "sentinel master '" + sentinel.master() + "' via " + sentinel.nodes();
        }
        if (cluster != null && cluster.nodes() != null && !cluster.nodes().isEmpty()) {
            return "cluster " + cluster.nodes();
        }
        if (url != null && !url.isBlank()) {
            return ParsedUrl.parse(url).address();
        }
        return (sslEnabled() ? "rediss://" : "redis://") + hostAndPort(host, port);
    }

    /**
     * The Redisson configuration. The client connects lazily (the {@code RedisConnector} makes the first connection
     * in the background), connecting and the handshake may take {@code connectTimeout}, and Redisson does not
     * retry: a script that was sent but not answered may have run, and sending it again could count twice. Every
     * call of the starter carries its own, shorter budget ({@code ratelimit.redis.timeout}). With an SSL bundle
     * ({@code spring.ssl.bundle.*}), TLS trust, client key, protocols and ciphers come from it.
     */
    Config toRedissonConfig(Duration connectTimeout, @Nullable SslBundle bundle) {
        Config config = new Config();
        config.setLazyInitialization(true);
        if (sentinel != null && sentinel.master() != null) {
            var servers =
                    config.useSentinelServers().setMasterName(sentinel.master()).setDatabase(database);
            for (String node : nodes(sentinel.nodes(), "spring.data.redis.sentinel.nodes")) {
                servers.addSentinelAddress(node);
            }
            if (sentinel.username() != null) {
                servers.setSentinelUsername(sentinel.username());
            }
            if (sentinel.password() != null) {
                servers.setSentinelPassword(sentinel.password());
            }
            apply(servers, username, password, connectTimeout, bundle);
        } else if (cluster != null
                && cluster.nodes() != null
                && !cluster.nodes().isEmpty()) {
            var servers = config.useClusterServers();
            for (String node : nodes(cluster.nodes(), "spring.data.redis.cluster.nodes")) {
                servers.addNodeAddress(node);
            }
            apply(servers, username, password, connectTimeout, bundle);
        } else if (url != null && !url.isBlank()) {
            ParsedUrl parsed = ParsedUrl.parse(url);
            var server = config.useSingleServer().setAddress(parsed.address()).setDatabase(parsed.database());
            apply(
                    server,
                    parsed.username() != null ? parsed.username() : username,
                    parsed.password() != null ? parsed.password() : password,
                    connectTimeout,
                    bundle);
        } else {
            var server = config.useSingleServer()
                    .setAddress((sslEnabled() ? "rediss://" : "redis://") + hostAndPort(host, port))
                    .setDatabase(database);
            apply(server, username, password, connectTimeout, bundle);
        }
        return config;
    }

    private void apply(
            BaseConfig<?> server,
            @Nullable String user,
            @Nullable String secret,
            Duration connect,
            @Nullable SslBundle bundle) {
        server.setRetryAttempts(0);
        server.setTimeout(millis(connect, "ratelimit.redis.connect-timeout"));
        server.setConnectTimeout(millis(connect, "ratelimit.redis.connect-timeout"));
        if (user != null && !user.isEmpty()) {
            server.setUsername(user);
        }
        if (secret != null && !secret.isEmpty()) {
            server.setPassword(secret);
        }
        if (clientName != null) {
            server.setClientName(clientName);
        }
        if (bundle != null) {
            server.setSslTrustManagerFactory(bundle.getManagers().getTrustManagerFactory());
            if (bundle.getStores().getKeyStore() != null) {
                server.setSslKeyManagerFactory(bundle.getManagers().getKeyManagerFactory());
            }
            if (bundle.getOptions().getEnabledProtocols() != null) {
                server.setSslProtocols(bundle.getOptions().getEnabledProtocols());
            }
            if (bundle.getOptions().getCiphers() != null) {
                server.setSslCiphers(bundle.getOptions().getCiphers());
            }
        }
    }

    private List<String> nodes(List<String> nodes, String property) {
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException(property + " must list at least one host:port");
        }
        String scheme = sslEnabled() ? "rediss://" : "redis://";
        return nodes.stream()
                .map(String::trim)
                .map(node -> node.contains("://") ? node : scheme + node)
                .toList();
    }

    private static String hostAndPort(String host, int port) {
        return (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
    }

    private static int millis(Duration duration, String property) {
        if (duration.isNegative() || duration.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    property + " must be between 0 and " + Integer.MAX_VALUE + " ms, but was " + duration);
        }
        return (int) duration.toMillis();
    }

    /** A {@code redis://} or {@code rediss://} URL: user info, host, port and database. */
    record ParsedUrl(String address, @Nullable String username, @Nullable String password, int database) {

        static ParsedUrl parse(String url) {
            URI uri;
            try {
                uri = new URI(url);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("spring.data.redis.url is not a valid URL: " + e.getMessage(), e);
            }
            String scheme = uri.getScheme();
            if (!"redis".equals(scheme) && !"rediss".equals(scheme)) {
                throw new IllegalArgumentException(
                        "spring.data.redis.url must start with redis:// or rediss://, but was '" + scheme + "://'");
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("spring.data.redis.url has no host");
            }
            String user = null;
            String secret = null;
            if (uri.getRawUserInfo() != null) {
                String info = uri.getRawUserInfo();
                int colon = info.indexOf(':');
                if (colon < 0) {
                    secret = decode(info);
                } else {
                    user = colon == 0 ? null : decode(info.substring(0, colon));
                    secret = decode(info.substring(colon + 1));
                }
            }
            int database = 0;
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                try {
                    database = Integer.parseInt(path.substring(1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(
                            "spring.data.redis.url names database '" + path.substring(1) + "', which is not a number");
                }
            }
            int port = uri.getPort() == -1 ? 6379 : uri.getPort();
            return new ParsedUrl(scheme + "://" + hostAndPort(uri.getHost(), port), user, secret, database);
        }

        private static String decode(String text) {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        }
    }
}
