package io.github.ratelimit.test.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import redis.embedded.RedisServer;

/**
 * A real redis-server process on a free loopback port, for tests: from the embedded-redis jar, or from the binary that
 * {@code ratelimit.test.redis-server} (or {@code RATELIMIT_TEST_REDIS_SERVER}) names.
 */
public final class RedisProcess implements AutoCloseable, RedisTopology {

    private final int port;
    private final Path dir;
    private final List<String> settings;
    private @Nullable RedisServer server;
    private long pid;

    private RedisProcess(int port, Path dir, List<String> settings) {
        this.port = port;
        this.dir = dir;
        this.settings = settings;
    }

    /** Starts a server with no persistence. */
    public static RedisProcess start() {
        return start(List.of());
    }

    /**
     * Starts a server with extra redis.conf lines, such as {@code appendonly yes}, on a free port: when another process
     * took the port between its choice and the server's bind (tests of parallel modules start servers too), on
     * another one, five times at most.
     */
    public static RedisProcess start(List<String> extraSettings) {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(freePort(), extraSettings);
            } catch (UncheckedIOException e) {
                if (attempt == 5 || !portTaken(e)) {
                    throw e;
                }
            }
        }
    }

    /** Whether the server failed to start because its port was taken. */
    private static boolean portTaken(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getMessage() != null && t.getMessage().contains("Address already in use")) {
                return true;
            }
        }
        return false;
    }

    /** Starts a server on the given port (one an application may already be trying), with extra settings. */
    public static RedisProcess startOn(int port, List<String> extraSettings) {
        try {
            Path dir = Files.createTempDirectory("redis-test");
            List<String> settings = new ArrayList<>(List.of("bind 127.0.0.1", "save \"\"", "dir " + dir));
            settings.addAll(extraSettings);
            RedisProcess process = new RedisProcess(port, dir, settings);
            // whether or not a test closes it, nothing stays behind when the JVM exits
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    process.close();
                } catch (RuntimeException e) {
                    deleteTree(dir);
                }
            }));
            process.startServer();
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void startServer() throws IOException {
        var builder = ServerBinary.newServer().port(port);
        for (String setting : settings) {
            builder.setting(setting);
        }
        server = builder.build();
        server.start();
        pid = RawRedis.pid(port);
    }

    /** Stops and starts the same server on the same port and data directory. */
    public void restart() {
        try {
            java.util.Objects.requireNonNull(server, "not started").stop();
            startServer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the server with SIGKILL, as a crash would, and starts it again on the same port and data. */
    public void crashAndRestart() {
        crash();
        restart();
    }

    /** Kills the server with SIGKILL, as a crash would; {@link #restart()} brings it back. */
    public void crash() {
        kill(pid);
    }

    /** Kills a process with SIGKILL and waits until it is gone. */
    static void kill(long pid) {
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow();
        process.destroyForcibly();
        process.onExit().join();
    }

    /** Freezes the server (SIGSTOP): it keeps its connections but answers nothing until {@link #thaw()}. */
    public void freeze() {
        signal("STOP");
    }

    /** Lets a frozen server go on (SIGCONT). */
    public void thaw() {
        signal("CONT");
    }

    private void signal(String name) {
        signal(pid, name);
    }

    /** Sends a signal ({@code STOP}, {@code CONT}) to a process. */
    static void signal(long pid, String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .inheritIO()
                    .start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + name + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** A new Redisson client for this server, as one application instance would have. */
    @Override
    public RedissonClient newClient() {
        Config config = new Config();
        config.setCodec(StringCodec.INSTANCE);
        config.useSingleServer()
                .setAddress(url())
                .setConnectionMinimumIdleSize(2)
                .setConnectionPoolSize(32);
        return Redisson.create(config);
    }

    /** Stops the server and deletes its directory: a test run leaves nothing in the temp directory. */
    @Override
    public void close() {
        try {
            if (server != null && server.isActive()) {
                server.stop();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deleteTree(dir);
        }
    }

    /** Deletes a directory and what it holds, best effort (a file still being written may stay). */
    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // best effort
                }
            });
        } catch (IOException e) {
            // best effort
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
