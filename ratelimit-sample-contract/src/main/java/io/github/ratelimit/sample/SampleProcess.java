package io.github.ratelimit.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A sample app in a JVM of its own, its output kept in a file for the failure messages. It binds a port the system
 * chooses ({@code --server.port=0}) and says which in its log: a port picked by the test and passed on could be taken
 * by another process (another build's) before the app binds it.
 */
final class SampleProcess {

    private static final Duration START_DEADLINE = Duration.ofSeconds(90);

    /** Boot's log line of a started web server: {@code Tomcat started on port 8080 (http)}, {@code Netty started ...}. */
    private static final Pattern STARTED = Pattern.compile("(?:Tomcat|Netty) started on port (\\d+)");

    private final Process process;
    private final Path output;
    private volatile int port;

    private SampleProcess(Process process, Path output) {
        this.process = process;
        this.output = output;
    }

    /** The port the app listens on, once {@link #awaitUp()} returned. */
    int port() {
        if (port == 0) {
            throw new IllegalStateException("the port is known once the instance is up");
        }
        return port;
    }

    /** Starts the application class from the test's class path, with more arguments if given. */
    static SampleProcess ofClass(Class<?> application, int redisPort, String... arguments) throws IOException {
        List<String> launch =
                new ArrayList<>(List.of("-cp", System.getProperty("java.class.path"), application.getName()));
        launch.addAll(List.of(arguments));
        return start(launch, redisPort);
    }

    /** Starts {@code java <launch> --server.port=0 --spring.data.redis.url=<redis>}. */
    static SampleProcess start(List<String> launch, int redisPort) throws IOException {
        return start(launch, List.of("--spring.data.redis.url=redis://127.0.0.1:" + redisPort));
    }

    /** Starts {@code java <launch> --server.port=0 <redis arguments>}: a URL, or a cluster's nodes. */
    static SampleProcess start(List<String> launch, List<String> redisArguments) throws IOException {
        Path output = Files.createTempFile("sample-", ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(launch);
        command.add("--server.port=0");
        command.addAll(redisArguments);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        return new SampleProcess(process, output);
    }

    /** Polls the health endpoint until it answers UP; the instance serves nothing else before. */
    void awaitUp() throws InterruptedException {
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) {
                throw new AssertionError("the instance stopped:\n" + log());
            }
            if (port == 0) {
                Matcher started = STARTED.matcher(log());
                if (started.find()) {
                    port = Integer.parseInt(started.group(1));
                } else {
                    Thread.sleep(100);
                    continue; // the web server has not started yet
                }
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
        throw new AssertionError("the instance (port " + port + ") did not report UP:\n" + log());
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
}
