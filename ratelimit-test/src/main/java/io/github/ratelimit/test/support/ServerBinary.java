package io.github.ratelimit.test.support;

import java.io.File;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisServer;
import redis.embedded.core.RedisServerBuilder;

/**
 * The {@code redis-server}-like binary every test server starts from: the one that the system property {@value
 * #PROPERTY} or the environment variable {@value #VARIABLE} names (a Valkey or a newer Redis, as run in production), or
 * else the Redis 6.2 binaries inside the embedded-redis jar. {@code @EmbeddedRedis}, {@link RedisProcess} and {@link
 * RedisClusterProcess} all start theirs here, so one setting moves a whole test run to another server.
 */
final class ServerBinary {

    /** The system property that names the binary; Maven passes {@code -D} on its command line to the tests. */
    static final String PROPERTY = "ratelimit.test.redis-server";

    /** The environment variable that names it when the property is not set. */
    static final String VARIABLE = "RATELIMIT_TEST_REDIS_SERVER";

    private ServerBinary() {}

    /** A builder of a server from the named binary, or from the embedded one when none is named. */
    static RedisServerBuilder newServer() {
        return newServer(named());
    }

    /** A builder of a server from this binary, or from the embedded one when it is null. */
    static RedisServerBuilder newServer(@Nullable File binary) {
        RedisServerBuilder builder = RedisServer.newRedisServer();
        if (binary != null) {
            builder.executableProvider(() -> binary);
        }
        return builder;
    }

    /** The binary named, checked, or null when none is. */
    static @Nullable File named() {
        return named(System.getProperty(PROPERTY), System.getenv(VARIABLE));
    }

    static @Nullable File named(@Nullable String property, @Nullable String variable) {
        boolean byProperty = property != null && !property.isBlank();
        String source = byProperty ? PROPERTY : VARIABLE;
        String path = byProperty ? property : variable;
        if (path == null || path.isBlank()) {
            return null;
        }
        File file = new File(path.trim());
        if (!file.isFile() || !file.canExecute()) {
            throw new IllegalStateException(source + " names '" + path + "', which is "
                    + (file.exists() ? "not an executable file" : "not there")
                    + "; name a redis-server or valkey-server binary, or leave it unset for the embedded Redis 6.2");
        }
        return file;
    }
}
