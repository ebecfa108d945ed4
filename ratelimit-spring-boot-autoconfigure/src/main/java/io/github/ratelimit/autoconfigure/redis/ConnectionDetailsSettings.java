package io.github.ratelimit.autoconfigure.redis;

import io.github.ratelimit.redis.RedisConnectionSettings;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Reads Spring Boot's {@link DataRedisConnectionDetails} (made by Testcontainers' {@code @ServiceConnection}, by
 * Docker Compose support, or by Spring Data Redis from its properties): where to connect and with which
 * credentials come from it, as in Spring Data Redis; client name and timeouts still from the properties. Only
 * loaded when that class is on the classpath.
 */
final class ConnectionDetailsSettings {

    private ConnectionDetailsSettings() {}

    /** The first connection-details bean of the Redis kind among {@code candidates}, or null. */
    static @Nullable Object find(List<?> candidates) {
        return candidates.stream()
                .filter(DataRedisConnectionDetails.class::isInstance)
                .findFirst()
                .orElse(null);
    }

    static RedisConnectionSettings apply(Object found, RedisConnectionSettings properties) {
        DataRedisConnectionDetails details = (DataRedisConnectionDetails) found;
        String host = "localhost";
        int port = 6379;
        int database = 0;
        RedisConnectionSettings.Sentinel sentinel = null;
        RedisConnectionSettings.Cluster cluster = null;
        if (details.getSentinel() != null) {
            DataRedisConnectionDetails.Sentinel given = details.getSentinel();
            database = given.getDatabase();
            sentinel = new RedisConnectionSettings.Sentinel(
                    given.getMaster(), nodes(given.getNodes()), given.getUsername(), given.getPassword());
        } else if (details.getCluster() != null) {
            cluster = new RedisConnectionSettings.Cluster(
                    nodes(details.getCluster().getNodes()));
        } else {
            DataRedisConnectionDetails.Standalone standalone =
                    java.util.Objects.requireNonNull(details.getStandalone());
            host = standalone.getHost();
            port = standalone.getPort();
            database = standalone.getDatabase();
        }
        return new RedisConnectionSettings(
                null,
                host,
                port,
                database,
                details.getUsername(),
                details.getPassword(),
                details.getSslBundle() != null ? new RedisConnectionSettings.Ssl(true, null) : null,
                properties.connectTimeout(),
                properties.clientName(),
                sentinel,
                cluster);
    }

    static @Nullable SslBundle sslBundle(Object found) {
        return ((DataRedisConnectionDetails) found).getSslBundle();
    }

    private static List<String> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream()
                .map(node -> RedisConnectionSettings.hostAndPort(node.host(), node.port()))
                .toList();
    }
}
