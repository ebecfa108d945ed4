package io.github.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A sample app in a JVM of its own, on a free port, its output kept in a file for the failure messages. */
record SampleProcess(Process process, int port, Path output) {

    private static final Duration START_DEADLINE = Duration.ofSeconds(90);

    /** Starts the application class from the test's class path. */
    static SampleProcess ofClass(Class<?> application, int redisPort) throws IOException {
        return start(List.of("-cp", System.getProperty("java.class.path"), application.getName()), redisPort);
    }

    /** Starts {@code java <launch> --server.port=<free> --spring.data.redis.url=<redis>}. */
    static SampleProcess start(List<String> launch, int redisPort) throws IOException {
        int port = freePort();
        Path output = Files.createTempFile("sample-", ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(launch);
        command.add("--server.port=" + port);
        command.add("--spring.data.redis.url=redis://127.0.0.1:" + redisPort);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        return new SampleProcess(process, port, output);
    }

    /** Polls the health endpoint until it answers UP; the instance serves nothing else before. */
    void awaitUp() throws InterruptedException {
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new AssertionError("the instance on port " + port + " stopped:\n" + log());
            }
            try {
                RawHttp.Response health = RawHttp.get("127.0.0.1", port, "/actuator/health", Map.of());
                if (health.status() == 200 && health.body().contains("\"status\":\"UP\"")) {
                    return;
                }
            } catch (UncheckedIOException notListeningYet) {
                // the web server has not started yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the instance on port " + port + " did not report UP:\n" + log());
    }

    String log() {
        try {
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    void stop() throws InterruptedException, IOException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(output);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
