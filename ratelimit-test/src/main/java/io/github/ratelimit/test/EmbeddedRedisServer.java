package io.github.ratelimit.test;

import io.github.ratelimit.test.support.RedisProcess;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The one redis-server of a JVM's tests; started on first use, stopped and deleted when the JVM exits. It is a {@link
 * RedisProcess}, so {@code ratelimit.test.redis-server} (or {@code RATELIMIT_TEST_REDIS_SERVER}) chooses its binary.
 */
final class EmbeddedRedisServer {

    private static @Nullable RedisProcess process;

    private EmbeddedRedisServer() {}

    /** The server's URL, starting it if needed. */
    static synchronized String url() {
        if (process == null) {
            process = RedisProcess.start(List.of("appendonly no"));
        }
        return process.url();
    }
}
