package io.github.ratelimit.test.support;

import org.jspecify.annotations.Nullable;

/** One redis-server for every test class of a JVM that needs no special settings; stopped when the JVM exits. */
public final class SharedRedis {

    private static @Nullable RedisProcess process;

    private SharedRedis() {}

    public static synchronized RedisProcess get() {
        if (process == null) {
            process = RedisProcess.start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::close));
        }
        return process;
    }
}
