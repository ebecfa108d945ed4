package io.github.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine's packages import only downward, in its source (an import, a fully qualified name or a javadoc link):
 * {@code web} and {@code observation} know no other package of the engine, {@code definition} (how limits are declared
 * and compiled) knows neither, {@code internal} (the interceptors' adapters) knows those below it, {@code call} (the
 * runner) knows those below it, and each feature package ({@code aop}, {@code servlet}, {@code reactive}, {@code
 * client}, {@code endpoint}, {@code metrics}, {@code openapi}, {@code refresh}, {@code usage}, {@code aot}) knows only
 * the shared ones below it, never another feature. Read from the source, so that an import the compiler drops (one
 * that names a type only for a comment, or one a nested type shadows) still counts.
 */
class EnginePackagesTest {

    /** The shared packages, lowest first: each may name only those before it. */
    private static final List<String> SHARED = List.of("web", "observation", "definition", "internal", "call");

    private static final Path SOURCES = Path.of("src/main/java/io/github/ratelimit/spring");

    private static final Pattern NAMED = Pattern.compile("io\\.github\\.ratelimit\\.spring\\.([a-z]+)\\b");

    @Test
    void everyPackageNamesOnlyPackagesBelowIt() throws IOException {
        List<String> upward = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SOURCES)) {
            files = walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
        for (Path file : files) {
            String from = SOURCES.relativize(file).getName(0).toString();
            if (from.endsWith(".java")) {
                continue; // a file of the engine's root package
            }
            Matcher named = NAMED.matcher(Files.readString(file));
            while (named.find()) {
                String to = named.group(1);
                if (!to.equals(from) && !below(to, from)) {
                    upward.add(SOURCES.relativize(file) + " names " + named.group());
                }
            }
        }
        assertThat(files).hasSizeGreaterThan(50);
        assertThat(upward).isEmpty();
    }

    /** Whether package {@code to} is one that {@code from} may name: a shared package below it. */
    private static boolean below(String to, String from) {
        int target = SHARED.indexOf(to);
        if (target < 0) {
            return false; // a feature package: no other package names it
        }
        int source = SHARED.indexOf(from);
        return source < 0 || target < source;
    }
}
