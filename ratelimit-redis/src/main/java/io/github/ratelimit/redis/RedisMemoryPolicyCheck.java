package io.github.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns at startup when Redis may evict keys under memory pressure: every key of the starter has a TTL, so
 * both {@code allkeys-*} and {@code volatile-*} policies can silently drop counters, tokens (a used token would
 * work again) and locks. Quietly skipped when the ACL user may not run {@code CONFIG GET}. Runs once Redis has
 * been reached (by the {@code RedisConnector}, for every application, first of what it runs after the connection),
 * never on the thread that starts the application.
 */
final class RedisMemoryPolicyCheck implements Consumer<RedissonClient> {

    private static final Logger log = LoggerFactory.getLogger(RedisMemoryPolicyCheck.class);

    @Override
    public void accept(RedissonClient client) {
        try {
            for (RedisNode node : masters(client)) {
                Map<String, String> config = node.getConfig("maxmemory*");
                String policy = config.getOrDefault("maxmemory-policy", "noeviction");
                String maxmemory = config.getOrDefault("maxmemory", "0");
                if (!"noeviction".equals(policy) && !"0".equals(maxmemory)) {
                    log.warn(
                            "Redis {} has maxmemory {} with maxmemory-policy {}: under memory pressure it may evict"
                                    + " rate limit counters, single-use tokens (a used token would work again) and locks."
                                    + " Use noeviction; a full Redis then refuses writes, which the fail policy handles.",
                            node.getAddr(),
                            maxmemory,
                            policy);
                }
            }
        } catch (RuntimeException e) {
            log.debug("Could not read maxmemory-policy (CONFIG GET not allowed?); skipping the eviction check", e);
        }
    }

    private static List<RedisNode> masters(RedissonClient client) {
        List<RedisNode> nodes = new ArrayList<>();
        if (client.getConfig().isClusterConfig()) {
            nodes.addAll(client.getRedisNodes(RedisNodes.CLUSTER).getMasters());
        } else if (client.getConfig().isSentinelConfig()) {
            nodes.add(client.getRedisNodes(RedisNodes.SENTINEL_MASTER_SLAVE).getMaster());
        } else {
            nodes.add(client.getRedisNodes(RedisNodes.SINGLE).getInstance());
        }
        return nodes;
    }
}
