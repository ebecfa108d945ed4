package io.github.ratelimit.test.support;

import org.jspecify.annotations.Nullable;

/** One Redis Cluster for every contract test of a JVM; stopped when the JVM exits. */
public final class SharedCluster {

    private static @Nullable RedisClusterProcess cluster;

    private SharedCluster() {}

    public static synchronized RedisClusterProcess get() {
        if (cluster == null) {
            cluster = RedisClusterProcess.start();
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        }
        return cluster;
    }
}
