package io.github.ratelimit.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import redis.embedded.RedisServer;

/** A real redis-server process (from the embedded-redis jar) on a free loopback port, for tests. */
public final class RedisProcess implements AutoCloseable {

    private final int port;
    private final Path dir;
    private final List<String> settings;
    private RedisServer server;

    private RedisProcess(int port, Path dir, List<String> settings) {
        this.port = port;
        this.dir = dir;
        this.settings = settings;
    }

    /** Starts a server with no persistence. */
    public static RedisProcess start() {
        return start(List.of());
    }

    /** Starts a server with extra redis.conf lines, such as {@code appendonly yes}. */
    public static RedisProcess start(List<String> extraSettings) {
        try {
            Path dir = Files.createTempDirectory("redis-test");
            List<String> settings = new ArrayList<>(List.of("bind 127.0.0.1", "save \"\"", "dir " + dir));
            settings.addAll(extraSettings);
            RedisProcess process = new RedisProcess(freePort(), dir, settings);
            process.startServer();
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void startServer() throws IOException {
        var builder = RedisServer.newRedisServer().port(port);
        for (String setting : settings) {
            builder.setting(setting);
        }
        server = builder.build();
        server.start();
    }

    /** Stops and starts the same server on the same port and data directory. */
    public void restart() {
        try {
            server.stop();
            startServer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the server with SIGKILL, as a crash would, and starts it again on the same port and data. */
    public void crashAndRestart() {
        ProcessHandle process = ProcessHandle.of(RawRedis.pid(port)).orElseThrow();
        process.destroyForcibly();
        process.onExit().join();
        restart();
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** A new Redisson client for this server, as one application instance would have. */
    public RedissonClient newClient() {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer()
                .setAddress(url())
                .setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(32);
        return Redisson.create(config);
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
