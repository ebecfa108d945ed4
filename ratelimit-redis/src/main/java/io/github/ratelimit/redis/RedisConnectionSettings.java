package io.github.ratelimit.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;

/**
 * Where the limiter's Redis is, with the names and meanings of Spring Boot's {@code spring.data.redis.*} properties
 * (which is why error messages name them), turned into the Redisson configuration the library needs: lazy, so that
 * {@link RedisConnector} makes the first connection in the background, and never retrying a command, since a script
 * that was sent but not answered may have run, and sending it again could count twice.
 *
 * @param url a {@code redis://} or {@code rediss://} URL with user info and database; wins over host and port
 * @param host the server's host; {@code localhost} when null
 * @param port the server's port; 6379 when null
 * @param database the database index; 0 when null
 * @param ssl whether to use TLS, and with which Spring SSL bundle
 * @param connectTimeout the time allowed to connect, as Spring Boot's property
 * @param clientName the name given to each connection ({@code CLIENT SETNAME})
 * @param sentinel a sentinel master and its sentinels; wins over everything else
 * @param cluster the nodes of a cluster; wins over a URL or a host
 */
public record RedisConnectionSettings(
        @Nullable String url,
        @Nullable String host,
        @Nullable Integer port,
        @Nullable Integer database,
        @Nullable String username,
        @Nullable String password,
        @Nullable Ssl ssl,
        @Nullable Duration connectTimeout,
        @Nullable String clientName,
        @Nullable Sentinel sentinel,
        @Nullable Cluster cluster) {

    private static final String PREFIX = "spring.data.redis.";

    /** {@code enabled} defaults to whether a {@code bundle} is named, as in Spring Boot. */
    public record Ssl(@Nullable Boolean enabled, @Nullable String bundle) {}

    /** A sentinel master, its sentinels ({@code host:port}) and the sentinels' own credentials. */
    public record Sentinel(
            @Nullable String master,
            @Nullable List<String> nodes,
            @Nullable String username,
            @Nullable String password) {}

    /** The nodes of a cluster, {@code host:port} each. */
    public record Cluster(@Nullable List<String> nodes) {}

    /** The TLS material of an SSL bundle: whom to trust, what to present, which protocols and ciphers. */
    public record Tls(
            TrustManagerFactory trust,
            @Nullable KeyManagerFactory key,
            String @Nullable [] protocols,
            String @Nullable [] ciphers) {}

    /** The defaults of an application that sets none of the properties: {@code redis://localhost:6379}. */
    public static RedisConnectionSettings defaults() {
        return new RedisConnectionSettings(null, null, null, null, null, null, null, null, null, null, null);
    }

    /**
     * The time allowed to connect and for the handshake: the library's own setting when given, else
     * {@code spring.data.redis.connect-timeout}, else 3 s.
     */
    public Duration connectTimeout(@Nullable Duration configured) {
        if (configured != null) {
            return configured;
        }
        return connectTimeout != null ? connectTimeout : Duration.ofSeconds(3);
    }

    /** Whether TLS is used. */
    public boolean sslEnabled() {
        return ssl != null && (ssl.enabled() != null ? ssl.enabled() : sslBundle() != null);
    }

    /** The name of the SSL bundle to trust (and present), from {@code spring.data.redis.ssl.bundle}, or null. */
    public @Nullable String sslBundle() {
        return ssl == null || ssl.bundle() == null || ssl.bundle().isBlank() ? null : ssl.bundle();
    }

    /** What the client connects to, for logs and failure reports (never the password); a malformed URL fails here. */
    public String describe() {
        if (sentinel != null && sentinel.master() != null) {
            return "sentinel master '" + sentinel.master() + "' via " + sentinel.nodes();
        }
        if (cluster != null && cluster.nodes() != null && !cluster.nodes().isEmpty()) {
            return "cluster " + cluster.nodes();
        }
        if (url != null && !url.isBlank()) {
            return ParsedUrl.parse(url).address();
        }
        return scheme() + hostAndPort(host(), port());
    }

    /**
     * The Redisson configuration: connecting and the handshake may take {@code connectTimeout}; every call of the
     * library carries its own, shorter budget ({@link RedisGuard}). With {@code tls}, trust, client key, protocols and
     * ciphers come from it.
     *
     * @throws IllegalArgumentException naming the property that is wrong
     */
    public Config toRedissonConfig(Duration connectTimeout, @Nullable Tls tls) {
        Config config = new Config();
        config.setLazyInitialization(true);
        if (sentinel != null && sentinel.master() != null) {
            var servers =
                    config.useSentinelServers().setMasterName(sentinel.master()).setDatabase(database());
            nodes(sentinel.nodes(), "sentinel.nodes").forEach(servers::addSentinelAddress);
            if (sentinel.username() != null) {
                servers.setSentinelUsername(sentinel.username());
            }
            if (sentinel.password() != null) {
                servers.setSentinelPassword(sentinel.password());
            }
            apply(config, servers, username, password, connectTimeout, tls);
        } else if (cluster != null
                && cluster.nodes() != null
                && !cluster.nodes().isEmpty()) {
            var servers = config.useClusterServers();
            nodes(cluster.nodes(), "cluster.nodes").forEach(servers::addNodeAddress);
            apply(config, servers, username, password, connectTimeout, tls);
        } else if (url != null && !url.isBlank()) {
            ParsedUrl parsed = ParsedUrl.parse(url);
            var server = config.useSingleServer().setAddress(parsed.address()).setDatabase(parsed.database());
            String user = parsed.username() != null ? parsed.username() : username;
            apply(config, server, user, parsed.password() != null ? parsed.password() : password, connectTimeout, tls);
        } else {
            var server = config.useSingleServer()
                    .setAddress(scheme() + hostAndPort(host(), port()))
                    .setDatabase(database());
            apply(config, server, username, password, connectTimeout, tls);
        }
        return config;
    }

    @Override
    public String host() {
        return host != null ? host : "localhost";
    }

    @Override
    public Integer port() {
        return port != null ? port : 6379;
    }

    @Override
    public Integer database() {
        return database != null ? database : 0;
    }

    /** The servers' timeouts and name; the credentials and TLS on the client's {@code Config}, where Redisson 4 reads them. */
    private void apply(
            Config config,
            BaseConfig<?> server,
            @Nullable String user,
            @Nullable String secret,
            Duration connect,
            @Nullable Tls tls) {
        if (connect.isNegative() || connect.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ratelimit.redis.connect-timeout must be between 0 and "
                    + Integer.MAX_VALUE + " ms, but was " + connect);
        }
        server.setRetryAttempts(0);
        server.setTimeout((int) connect.toMillis());
        server.setConnectTimeout((int) connect.toMillis());
        if (user != null && !user.isEmpty()) {
            config.setUsername(user);
        }
        if (secret != null && !secret.isEmpty()) {
            config.setPassword(secret);
        }
        if (clientName != null) {
            server.setClientName(clientName);
        }
        if (tls != null) {
            config.setSslTrustManagerFactory(tls.trust());
            if (tls.key() != null) {
                config.setSslKeyManagerFactory(tls.key());
            }
            if (tls.protocols() != null) {
                config.setSslProtocols(tls.protocols());
            }
            if (tls.ciphers() != null) {
                config.setSslCiphers(tls.ciphers());
            }
        }
    }

    private String scheme() {
        return sslEnabled() ? "rediss://" : "redis://";
    }

    private List<String> nodes(@Nullable List<String> nodes, String property) {
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException(PREFIX + property + " must list at least one host:port");
        }
        return nodes.stream()
                .map(String::trim)
                .map(node -> node.contains("://") ? node : scheme() + node)
                .toList();
    }

    /** {@code host:port}, with an IPv6 host in brackets. */
    public static String hostAndPort(String host, int port) {
        return (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * A {@code redis://} or {@code rediss://} URL: user info, host, port and database.
     *
     * @param address the scheme, host and port, as Redisson reads them
     * @param username the user of the user info, or null
     * @param password the password of the user info, or null
     * @param database the database of the path, 0 without one
     */
    record ParsedUrl(String address, @Nullable String username, @Nullable String password, int database) {

        /**
         * @throws IllegalArgumentException naming {@code spring.data.redis.url} and what is wrong with it
         */
        static ParsedUrl parse(String url) {
            URI uri;
            try {
                uri = new URI(url);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException(PREFIX + "url is not a valid URL: " + e.getMessage(), e);
            }
            String scheme = uri.getScheme();
            if (!url.contains("://") || (!"redis".equals(scheme) && !"rediss".equals(scheme))) {
                throw new IllegalArgumentException(PREFIX + "url must start with redis:// or rediss:// (such as"
                        + " redis://localhost:6379), but was '" + withoutCredentials(url) + "'");
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException(PREFIX + "url has no host");
            }
            String user = null;
            String secret = null;
            String info = uri.getRawUserInfo();
            if (info != null) {
                int colon = info.indexOf(':');
                user = colon <= 0 ? null : decode(info.substring(0, colon));
                secret = decode(colon < 0 ? info : info.substring(colon + 1));
            }
            int database = 0;
            String path = uri.getPath();
            if (path != null && path.length() > 1) {
                try {
                    database = Integer.parseInt(path.substring(1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(
                            PREFIX + "url names database '" + path.substring(1) + "', which is not a number");
                }
            }
            int port = uri.getPort() == -1 ? 6379 : uri.getPort();
            return new ParsedUrl(scheme + "://" + hostAndPort(uri.getHost(), port), user, secret, database);
        }

        /** The URL as typed, with any user info (a password) left out: what an error may show. */
        static String withoutCredentials(String url) {
            int at = url.lastIndexOf('@');
            if (at < 0) {
                return url;
            }
            int start = url.indexOf("://");
            return (start >= 0 && start < at ? url.substring(0, start + 3) : "") + "…@" + url.substring(at + 1);
        }

        private static String decode(String text) {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        }
    }
}
