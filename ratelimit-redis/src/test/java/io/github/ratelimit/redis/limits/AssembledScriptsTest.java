package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.redis.internal.LuaScript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The scripts Redis runs, checked in: {@code ratelimit-redis/scripts/} holds the assembled script of each shape that
 * the samples and the benchmark decide, and of each script that changes a limit after its decision, exactly as
 * {@link DecisionScripts} assembles them. A change to a piece in {@code decide/} then shows, in the same diff, what it
 * does to the scripts that run. This test fails when a piece changed and the files did not; {@link #COMMAND} writes
 * them again.
 */
class AssembledScriptsTest {

    /** The command that writes the checked-in scripts again (from the repository's root). */
    static final String COMMAND = "./mvnw -q -pl ratelimit-redis -am test -Dtest=AssembledScriptsTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dratelimit.scripts.write=true";

    /** Where the scripts are, from the module's folder (the tests' working directory). */
    static final Path FOLDER = Path.of("scripts");

    private static final long LIMIT = 100;

    /**
     * The calls whose scripts are checked in, by what decides them: the benchmark's workloads (docs/benchmarks.md) and
     * the shapes the sample applications' HTTP contracts decide (servlet, reactive, Kotlin and protocols: {@code 1},
     * {@code 2}, {@code 3}, {@code 1a}, {@code 1ah}, {@code 1o}, {@code 1op}, {@code 5o}, {@code w3}, {@code w3.w3}, as
     * they were met in one run). Each is made into its shape as the limiter makes it, on one Redis; a waiting call
     * ({@link #WAITING}) as it is sent when it may hold a slot.
     */
    static Map<String, List<LimitRequest>> calls() {
        Map<String, List<LimitRequest>> calls = new LinkedHashMap<>();
        for (Algorithm algorithm : Algorithm.values()) {
            calls.put(
                    "one " + algorithm.name().toLowerCase(java.util.Locale.ROOT) + " (benchmark; most samples' limits)",
                    List.of(request(RateLimit.of("b", algorithm, LIMIT, 1_000), "user")));
        }
        calls.put(
                "a sliding window with a penalty (benchmark)",
                List.of(request(
                        RateLimit.of("p", Algorithm.SLIDING_WINDOW, LIMIT, 1_000)
                                .withPenalty(Duration.ofMinutes(1)),
                        "user")));
        calls.put(
                "a sliding window's share (benchmark; the sample's fleet limit)",
                List.of(request(
                        RateLimit.of("s", Algorithm.SLIDING_WINDOW, LIMIT, 1_000)
                                .withShare(0.8),
                        "user")));
        calls.put(
                "a monthly quota (benchmark; the sample's monthly plan)",
                List.of(request(
                        RateLimit.of("c", Algorithm.FIXED_WINDOW, LIMIT, 1)
                                .inCalendar(CalendarPeriod.of(CalendarPeriod.Unit.MONTH)),
                        "user")));
        List<LimitRequest> threeNames = new ArrayList<>();
        List<LimitRequest> seed = new ArrayList<>();
        long[] windows = {1_000, 60_000, 3_600_000};
        for (int w = 0; w < windows.length; w++) {
            RateLimit named = RateLimit.of("m" + w, Algorithm.SLIDING_WINDOW, LIMIT, windows[w]);
            threeNames.add(request(named, "ip"));
            threeNames.add(request(named, "user"));
        }
        for (String id : List.of("ip", "user")) {
            for (long window : windows) {
                seed.add(request(RateLimit.of("seed", Algorithm.SLIDING_WINDOW, LIMIT, window), id));
            }
        }
        calls.put("3 limits of their own names x 2 identifiers (benchmark)", threeNames);
        calls.put("the seed: 10/s + 120/min + 240/h for an address and a user (benchmark; the README)", seed);
        calls.put(
                "a sliding window with staggered advice (the sample's export)",
                List.of(request(RateLimit.of("export", Algorithm.SLIDING_WINDOW, 5, 1_000), "user")
                        .asStaggered(true)));
        calls.put(
                WAITING + ": a sliding window with staggered advice that holds a slot (the sample's wait)",
                List.of(request(RateLimit.of("wait", Algorithm.SLIDING_WINDOW, 5, 1_000), "user")
                        .asStaggered(true)));
        List<LimitRequest> perUser = new ArrayList<>();
        for (long window : windows) {
            perUser.add(request(RateLimit.of("search", Algorithm.SLIDING_WINDOW, LIMIT, window), "user"));
        }
        calls.put("3 windows of one name for one identifier (the samples' search)", perUser);
        return calls;
    }

    /** The calls named so are sent as a waiting call is: it may hold a slot within its wait. */
    static final String WAITING = "a waiting call";

    /** A call's shape as the limiter names it on one Redis, a waiting call's as it is sent within a wait of 5 s. */
    private static String shapeOf(String what, List<LimitRequest> requests) {
        return WideCalls.shapeOnOneRedis(requests, what.startsWith(WAITING) ? 5_000 : 0);
    }

    private static LimitRequest request(RateLimit limit, String id) {
        return LimitRequest.of(limit, id, 1);
    }

    /** Every checked-in file by name, with what it must hold: a header naming its input and the command, the script. */
    static Map<String, String> expected() {
        Map<String, List<String>> shapes = new LinkedHashMap<>(); // calls of one shape share its script
        calls().forEach((what, requests) -> shapes.computeIfAbsent(shapeOf(what, requests), shape -> new ArrayList<>())
                .add(what));
        Map<String, String> files = new LinkedHashMap<>();
        DecisionScripts scripts = new DecisionScripts();
        shapes.forEach((shape, uses) -> {
            LuaScript script = scripts.forShape(shape);
            files.put(
                    "decide-" + shape + ".lua",
                    header("the decision script of calls of the shape " + shape, uses, script) + script.source());
        });
        for (String operation : List.of("giveback", "release", "charge", "credit")) {
            LuaScript script = DecisionScripts.after(operation);
            files.put(
                    "after-" + operation + ".lua",
                    header("the " + operation + " script", List.of("every limit"), script) + script.source());
        }
        return files;
    }

    private static String header(String what, List<String> uses, LuaScript script) {
        return "-- " + what + ", as DecisionScripts assembles it from src/main/resources/.../limits (SHA-1 "
                + script.sha1() + ")\n"
                + "-- for: " + String.join("; ", uses) + "\n"
                + "-- Written by: " + COMMAND + "\n"
                + "-- Do not edit: change the pieces, then write these files again. The script starts below this line.\n";
    }

    @Test
    void theCheckedInScriptsAreTheOnesThatRun() throws IOException {
        Map<String, String> expected = expected();
        if (Boolean.getBoolean("ratelimit.scripts.write")) {
            Files.createDirectories(FOLDER);
            for (String name : listed()) {
                if (name.endsWith(".lua") && !expected.containsKey(name)) {
                    Files.delete(FOLDER.resolve(name));
                }
            }
            for (Map.Entry<String, String> file : expected.entrySet()) {
                Files.writeString(FOLDER.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
            }
        }
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> file : expected.entrySet()) {
            Path path = FOLDER.resolve(file.getKey());
            if (!Files.exists(path)
                    || !Files.readString(path, StandardCharsets.UTF_8).equals(file.getValue())) {
                stale.add(file.getKey());
            }
        }
        TreeSet<String> extra = new TreeSet<>(listed());
        extra.removeIf(name -> !name.endsWith(".lua") || expected.containsKey(name));
        assertThat(stale)
                .as("checked-in scripts in ratelimit-redis/scripts/ that differ from what the pieces assemble: write"
                        + " them again with " + COMMAND)
                .isEmpty();
        assertThat(extra)
                .as("checked-in scripts of no listed call: write the folder again with " + COMMAND)
                .isEmpty();
    }

    private static List<String> listed() {
        if (!Files.isDirectory(FOLDER)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(FOLDER)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
