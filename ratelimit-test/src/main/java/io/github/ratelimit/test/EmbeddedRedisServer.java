package io.github.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import redis.embedded.RedisServer;

/** The one redis-server of a JVM's tests; started on first use, stopped and deleted when the JVM exits. */
final class EmbeddedRedisServer {

    private static @Nullable String url;

    private EmbeddedRedisServer() {}

    /** The server's URL, starting it if needed. */
    static synchronized String url() {
        if (url == null) {
            url = start();
        }
        return url;
    }

    private static String start() {
        try {
            Path dir = Files.createTempDirectory("ratelimit-test-redis");
            int port = freePort();
            RedisServer server = RedisServer.newRedisServer()
                    .port(port)
                    .setting("bind 127.0.0.1")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .setting("dir " + dir)
                    .build();
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.stop();
                } catch (IOException | RuntimeException e) {
                    // the JVM is exiting: the process goes with it
                }
                delete(dir);
            }));
            return "redis://127.0.0.1:" + port;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the embedded Redis for the tests", e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // best effort
        }
    }
}
