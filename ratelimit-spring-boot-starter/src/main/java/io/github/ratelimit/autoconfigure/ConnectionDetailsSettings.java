package io.github.ratelimit.autoconfigure;

import java.util.List;
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
    static Object find(List<?> candidates) {
        return candidates.stream()
                .filter(DataRedisConnectionDetails.class::isInstance)
                .findFirst()
                .orElse(null);
    }

    static RedisConnectionSettings apply(Object found, RedisConnectionSettings properties) {
        DataRedisConnectionDetails details = (DataRedisConnectionDetails) found;
        RedisConnectionSettings.Ssl ssl =
                details.getSslBundle() != null ? new RedisConnectionSettings.Ssl(true, null) : null;
        if (details.getSentinel() != null) {
            DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
            return new RedisConnectionSettings(
                    null,
                    "localhost",
                    6379,
                    sentinel.getDatabase(),
                    details.getUsername(),
                    details.getPassword(),
                    ssl,
                    properties.connectTimeout(),
                    properties.clientName(),
                    new RedisConnectionSettings.Sentinel(
                            sentinel.getMaster(),
                            nodes(sentinel.getNodes()),
                            sentinel.getUsername(),
                            sentinel.getPassword()),
                    null);
        }
        if (details.getCluster() != null) {
            return new RedisConnectionSettings(
                    null,
                    "localhost",
                    6379,
                    0,
                    details.getUsername(),
                    details.getPassword(),
                    ssl,
                    properties.connectTimeout(),
                    properties.clientName(),
                    null,
                    new RedisConnectionSettings.Cluster(
                            nodes(details.getCluster().getNodes())));
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return new RedisConnectionSettings(
                null,
                standalone.getHost(),
                standalone.getPort(),
                standalone.getDatabase(),
                details.getUsername(),
                details.getPassword(),
                ssl,
                properties.connectTimeout(),
                properties.clientName(),
                null,
                null);
    }

    static SslBundle sslBundle(Object found) {
        return ((DataRedisConnectionDetails) found).getSslBundle();
    }

    private static List<String> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream()
                .map(node -> (node.host().contains(":") ? "[" + node.host() + "]" : node.host()) + ":" + node.port())
                .toList();
    }
}
