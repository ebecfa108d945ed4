package io.github.ratelimit.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The servlet sample's jar as a baseline release built it: the tree of a git ref ({@code upgrade.baseline}) taken out
 * of this repository with {@code git archive} under {@code target/}, and packaged there by its own Maven wrapper
 * with the tests skipped: offline first (this build has fetched what the baseline needs, unless the baseline used
 * other versions), then online. Nothing is installed: the baseline's modules resolve in its own reactor. A jar built
 * before for the same commit is used again.
 */
final class BaselineSample {

    private BaselineSample() {}

    /** The baseline's servlet sample jar, built if need be. */
    static Path jar() throws IOException, InterruptedException {
        Path root = Path.of(required("upgrade.root"));
        String commit = run(root, List.of("git", "rev-parse", "--short=12", required("upgrade.baseline") + "^{commit}"))
                .strip();
        Path tree = Path.of("target", "baseline-" + commit).toAbsolutePath();
        Path jar = tree.resolve("ratelimit-sample-app/target/ratelimit-sample-app.jar");
        if (Files.exists(jar)) {
            return jar;
        }
        Files.createDirectories(tree);
        Path archive = tree.resolveSibling("baseline-" + commit + ".tar");
        run(root, List.of("git", "archive", "--format=tar", "-o", archive.toString(), commit));
        run(tree, List.of("tar", "-xf", archive.toString()));
        Files.delete(archive);
        List<String> build = new ArrayList<>(List.of(
                tree.resolve("mvnw").toString(),
                "-B",
                "-q",
                "package",
                "-DskipTests",
                "-Dmaven.repo.local=" + required("upgrade.repository"),
                "-pl",
                "ratelimit-sample-app",
                "-am"));
        long started = System.nanoTime();
        List<String> offline = new ArrayList<>(build);
        offline.add(1, "-o");
        try {
            run(tree, offline);
        } catch (IllegalStateException missingOffline) {
            run(tree, build);
        }
        System.out.printf(
                "baseline %s built in %d s%n", commit, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        return jar;
    }

    /** This build's servlet sample jar. */
    static Path current() {
        Path jar = Path.of(required("upgrade.current"));
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: build with ./mvnw -B -Pupgrade verify");
        }
        return jar;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException(property + " is not set: run this test through ./mvnw -Pupgrade");
        }
        return value;
    }

    private static String run(Path directory, List<String> command) throws IOException, InterruptedException {
        Path output = Files.createTempFile("baseline-", ".log");
        try {
            Process process = new ProcessBuilder(command)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(15, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " took more than 15 minutes");
            }
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(
                        String.join(" ", command) + " failed (" + process.exitValue() + "):\n" + printed);
            }
            return printed;
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
