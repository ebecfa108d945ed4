package io.github.ratelimit.benchmarks;

import io.github.ratelimit.redis.limits.RedisRateLimiter;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Where Redis's time goes inside the decision script of the seed's shape (3 sliding windows of one name x 2
 * identifiers, one key per identifier) with 10,000 keys: the script is run as it is, then with {@code TIME} marks
 * between its sections (parsing the arguments, checking the keys, committing and reporting, the reply, writing back),
 * each section's microseconds summed in a hash. Batches of 1 and of 10 calls per script call (what one caller and
 * many callers send). A mark costs about one {@code TIME}: compare sections, not the instrumented total with the plain
 * one. Beside the script, {@code three-windows-floor.lua}: the same commands with no generality, the least a decision
 * of this layout costs. {@code --script-profile}.
 */
final class ScriptProfile {

    private static final String SPEC = "4,1,1000000,1000,1000000,60000,1000000,3600000";
    private static final int KEYS = 10_000;
    private static final int CHUNK = 250;
    private static final String T =
            "local __t = redis.call('TIME') __t = tonumber(__t[1]) * 1000000 + tonumber(__t[2])";

    private final RedissonClient redisson;
    private final RedisNode node;

    private ScriptProfile(String url) {
        Config config = new Config();
        config.useSingleServer().setAddress(url);
        this.redisson = Redisson.create(config);
        this.node = redisson.getRedisNodes(RedisNodes.SINGLE).getInstance();
    }

    static void run(String url) throws Exception {
        ScriptProfile profile = new ScriptProfile(url);
        try {
            String plain = jarScript();
            String floor = floorScript();
            String marked = instrumented(plain);
            System.out.println(
                    "| script, 3 windows x 2 ids, 10,000 keys | calls per script call | Redis µs per decision |");
            System.out.println("|---|---:|---:|");
            for (int batch : new int[] {1, 10}) {
                for (int round = 0; round < 3; round++) {
                    System.out.printf(
                            Locale.ROOT,
                            "| as it is, run %d | %d | %.1f |%n",
                            round + 1,
                            batch,
                            profile.measure(plain, batch));
                    System.out.printf(
                            Locale.ROOT,
                            "| its commands alone (three-windows-floor.lua), run %d | %d | %.1f |%n",
                            round + 1,
                            batch,
                            profile.measure(floor, batch));
                }
            }
            System.out.println();
            System.out.println("| section (TIME marks) | calls per script call | µs per decision |");
            System.out.println("|---|---:|---:|");
            for (int batch : new int[] {1, 10}) {
                profile.measure(marked, batch);
                profile.redisson.getKeys().delete("bench:profile");
                profile.measure(marked, batch); // three passes over the keys, all of them marked
                Map<String, String> sections = profile.redisson
                        .<String, String>getMap("bench:profile", StringCodec.INSTANCE)
                        .readAllMap();
                new TreeMap<>(sections)
                        .forEach((section, micros) -> System.out.printf(
                                Locale.ROOT,
                                "| %s | %d | %.1f |%n",
                                section,
                                batch,
                                Long.parseLong(micros) / (3.0 * KEYS)));
            }
        } finally {
            profile.redisson.shutdown();
        }
    }

    /**
     * The scripts of an older version, one before each shape had a script of its own ({@code ring.lua},
     * {@code ring_multi.lua} if it has one, and {@code ratelimit.lua} in {@code otherDir}, its resources), against this
     * jar's and against {@code three-windows-floor.lua}, for 3 windows x 2 ids with 10,000 keys: after two passes
     * over the keys (a second apart, so that the 1-second windows let entries go), a third pass in chunks of 250
     * decisions, each chunk run by every version in turn (each version first as often), Redis's microseconds in {@code EVALSHA} per decision per chunk;
     * medians over the chunks. Interleaved so that a shared machine's drift touches all versions alike.
     * {@code --script-compare=<dir>}.
     */
    static void compare(String url, Path otherDir) throws Exception {
        ScriptProfile profile = new ScriptProfile(url);
        try {
            Path multi = otherDir.resolve("ring_multi.lua"); // a version that keeps the codec of several windows apart
            String other = Files.readString(otherDir.resolve("ring.lua")) + "\n"
                    + (Files.exists(multi) ? Files.readString(multi) + "\n" : "")
                    + Files.readString(otherDir.resolve("ratelimit.lua"));
            String otherName = "other (" + otherDir.getFileName() + ")";
            Map<String, String> threeByTwo = new LinkedHashMap<>();
            threeByTwo.put(otherName, other);
            threeByTwo.put("this jar's", jarScript());
            threeByTwo.put("its commands alone (three-windows-floor.lua)", floorScript());
            profile.compare("3 windows x 2 ids", threeByTwo, SPEC, 2);
            Map<String, String> oneWindow = new LinkedHashMap<>();
            oneWindow.put(otherName, other);
            oneWindow.put("this jar's", decisionScript("1"));
            profile.compare("1 sliding window x 1 id", oneWindow, ONE_WINDOW, 1);
        } finally {
            profile.redisson.shutdown();
        }
    }

    /** One sliding window of 1,000,000 per second (always admitted). */
    private static final String ONE_WINDOW = "1,1000000,1000,1,0,10000";

    private void compare(String layout, Map<String, String> versions, String spec, int ids) throws Exception {
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        Map<String, String> shas = new LinkedHashMap<>();
        versions.forEach((name, source) -> shas.put(name, script.scriptLoad(source)));
        System.out.println("| scripts, " + layout + ", 10,000 keys | calls per script call | Redis µs per decision"
                + " (median of " + KEYS / CHUNK + " chunks) | ratio to the other |");
        System.out.println("|---|---:|---:|---:|");
        for (int batch : new int[] {1, 10}) {
            for (int pass = 0; pass < 2; pass++) {
                for (String sha : shas.values()) {
                    pass(script, sha, batch, 0, KEYS, spec, ids);
                }
                Thread.sleep(1_100);
            }
            Map<String, List<Double>> perChunk = new LinkedHashMap<>();
            List<String> names = new ArrayList<>(shas.keySet());
            names.forEach(name -> perChunk.put(name, new ArrayList<>()));
            for (int first = 0; first < KEYS; first += CHUNK) {
                // each chunk starts with the next version: the one run first in a chunk pays more (measured with
                // the same script twice), so every version goes first as often
                for (int v = 0; v < names.size(); v++) {
                    String name = names.get((first / CHUNK + v) % names.size());
                    long[] before = evalsha();
                    pass(script, shas.get(name), batch, first, first + CHUNK, spec, ids);
                    long[] after = evalsha();
                    perChunk.get(name).add((after[1] - before[1]) / (double) CHUNK);
                }
            }
            double first = median(perChunk.values().iterator().next());
            for (Map.Entry<String, List<Double>> version : perChunk.entrySet()) {
                double median = median(version.getValue());
                System.out.printf(
                        Locale.ROOT, "| %s | %d | %.1f | %.2f |%n", version.getKey(), batch, median, median / first);
            }
        }
        System.out.println();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /** The script with a TIME mark after each section, each section's time added to the hash bench:profile. */
    static String instrumented(String source) {
        String s = source;
        s = insertAfter(
                s, "local call = redis.call\n", "local __prof = {}\nlocal __last\ndo " + T + " __last = __t end\n");
        s = insertBefore(s, "-- the format of up to 24 integers", mark("1 parse the arguments"));
        s = insertBefore(s, "    -- the call is admitted: each key with room", mark("2 check the keys"));
        s = insertBefore(s, "    -- one bulk string, cheaper to read", mark("3 commit and report"));
        s = insertAfter(s, "    -- the call is decided and answered\n", mark("4 the reply"));
        s = insertBefore(
                s,
                "return replies\n",
                mark("5 write back")
                        + "for name, us in pairs(__prof) do redis.call('HINCRBY', 'bench:profile', name, us) end\n");
        return s;
    }

    private static String mark(String name) {
        return "do " + T + " __prof['" + name + "'] = (__prof['" + name + "'] or 0) + __t - __last __last = __t end\n";
    }

    private static String insertBefore(String source, String anchor, String text) {
        int at = source.indexOf(anchor);
        if (at < 0) {
            throw new IllegalStateException("The decision script no longer has the line this profile marks: " + anchor);
        }
        return source.substring(0, at) + text + source.substring(at);
    }

    private static String insertAfter(String source, String anchor, String text) {
        int at = source.indexOf(anchor);
        if (at < 0) {
            throw new IllegalStateException("The decision script no longer has the line this profile marks: " + anchor);
        }
        return source.substring(0, at + anchor.length()) + text + source.substring(at + anchor.length());
    }

    /**
     * Runs two passes over the keys to warm up (so that each key's 1-second window has let entries go between two asks
     * of it, as under load), then one measured pass; Redis's microseconds in EVALSHA per decision.
     */
    private double measure(String source, int batch) {
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        String sha = script.scriptLoad(source);
        for (int pass = 0; pass < 2; pass++) {
            pass(script, sha, batch);
        }
        long[] before = evalsha();
        pass(script, sha, batch);
        long[] after = evalsha();
        return (after[1] - before[1]) / (double) KEYS;
    }

    private static void pass(RScript script, String sha, int batch) {
        pass(script, sha, batch, 0, KEYS);
    }

    /** Keys {@code from} to {@code to} (exclusive) once each, {@code batch} calls per script call. */
    private static void pass(RScript script, String sha, int batch, int from, int to) {
        pass(script, sha, batch, from, to, SPEC, 2);
    }

    /** The same with {@code ids} keys of {@code spec} per call (1: the ip's only). */
    private static void pass(RScript script, String sha, int batch, int from, int to, String spec, int ids) {
        for (int first = from; first < to; first += batch) {
            List<Object> keys = new ArrayList<>();
            List<Object> argv = new ArrayList<>();
            argv.add(String.valueOf(batch));
            for (int i = first; i < first + batch; i++) {
                // a layout's own keys: a key of 3 windows read as one of one window is not a ring of one window
                keys.add("bench:" + sha.substring(0, 8) + ":" + ids + ":{ip-" + i + "}:profile");
                argv.add(String.valueOf(ids));
                argv.add(spec);
                if (ids == 2) {
                    keys.add("bench:" + sha.substring(0, 8) + ":" + ids + ":{user-" + i + "}:profile");
                    argv.add(spec);
                }
            }
            script.evalSha(RScript.Mode.READ_WRITE, sha, RScript.ReturnType.LIST, keys, argv.toArray());
        }
    }

    /** Calls of EVALSHA so far and Redis's microseconds in them. */
    private long[] evalsha() {
        String line = node.info(RedisNode.InfoSection.COMMANDSTATS).get("cmdstat_evalsha");
        if (line == null) {
            return new long[2];
        }
        return new long[] {Benchmarks.field(line, "calls="), Benchmarks.field(line, "usec=")};
    }

    /** The jar's decision script for 3 windows x 2 ids, as Redis runs it. */
    private static String jarScript() throws Exception {
        return decisionScript("w3.w3");
    }

    /** The jar's decision script for a shape (see DecisionScripts, package-private in the starter's Redis module). */
    static String decisionScript(String shape) throws Exception {
        java.lang.reflect.Method assemble = Class.forName("io.github.ratelimit.redis.limits.DecisionScripts")
                .getDeclaredMethod("assemble", String.class);
        assemble.setAccessible(true);
        return (String) assemble.invoke(null, shape);
    }

    /** The floor script (its commands alone), after the ring.lua it calls. */
    private static String floorScript() throws Exception {
        return read(RedisRateLimiter.class, "ring.lua") + "\n" + read(ScriptProfile.class, "three-windows-floor.lua");
    }

    private static String read(Class<?> next, String name) throws Exception {
        try (InputStream in = next.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("No script " + name + " next to " + next);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
