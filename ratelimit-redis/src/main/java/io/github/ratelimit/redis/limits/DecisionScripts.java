package io.github.ratelimit.redis.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.redis.internal.LuaScript;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The decision scripts, one per shape of call: the kind of each of its keys in order (algorithm, window count,
 * options, advice, penalty), read from the call's specs. Each script is assembled from the pieces in {@code decide/}
 * (one file per concern, see {@code decide/decide.lua}) with only the code of the kinds its shape has, unrolled per
 * key, so that no branch runs for a kind the call does not have. A shape is assembled the first time it is asked for,
 * once; Redis knows each by its SHA-1, loaded again on NOSCRIPT as every script is.
 *
 * <p>A piece file holds sections, each from a line {@code --- name} to the next; the assembler replaces in them
 * {@code $name} (the key's position, offsets of its keys, its kind's constants), repeats the lines between
 * {@code --- each window} and {@code --- end each} and the text of {@code $[...]} once per window ({@code $j}, and
 * {@code $(...)} an integer expression in {@code j}), and puts a section of the same file in place of a line
 * {@code ${name}} (of another piece: {@code ${piece:name}}). docs/design.md explains the marks.
 */
final class DecisionScripts {

    /** Shapes kept assembled at most (a shape evicted is assembled again, to the same script). */
    static final int MAX_SHAPES = 512;

    private static final Logger log = LoggerFactory.getLogger(DecisionScripts.class);

    /**
     * Every piece's sections, read when the class is loaded: a shape first met at run time is assembled on the caller's
     * thread, which may be an event loop's, so assembling reads no file.
     */
    private static final Map<String, Map<String, String>> PIECES = new LinkedHashMap<>();

    /** The pieces, in {@code decide/}. */
    static final List<String> PIECE_NAMES = List.of(
            "decide",
            "spec",
            "sliding",
            "held",
            "windows",
            "fixed",
            "calendar",
            "bucket",
            "penalty",
            "advice",
            "sliding_after",
            "windows_after",
            "after",
            "units");

    /**
     * The values a piece may name ({@code $name}): the shape's (its positions, key names, answers, common reply), each
     * key's ({@link #tokens}) and the window's number {@code $j}.
     */
    static final Set<String> VALUES = Set.of(
            "positions",
            "keys",
            "answers",
            "common",
            "i",
            "kind",
            "k",
            "cursor",
            "box",
            "position",
            "algorithm",
            "advice",
            "hold",
            "penalty",
            "forget",
            "others",
            "windows",
            "values",
            "base",
            "last",
            "format",
            "loop",
            "most",
            "clock",
            "j");

    private static final Pattern WORKED_OUT = Pattern.compile("[0-9j+\\-* ]+");

    /**
     * What is wrong with a piece's sections, each naming the piece and section: a {@code ${name}} that names neither
     * a section of the piece nor a value, a {@code $name} that names no value, a {@code $(...)} that is not an integer
     * expression in {@code j}, a {@code --- each window} without its {@code --- end each}.
     */
    static List<String> problems(String piece, Map<String, String> sections) {
        List<String> problems = new ArrayList<>();
        sections.forEach((section, text) -> {
            String where = "decide/" + piece + ".lua, section '" + section + "': ";
            int open = 0;
            for (String line : text.split("\n")) {
                Matcher insert = INSERT.matcher(line);
                if (insert.matches()) {
                    String other = insert.group(1);
                    String name = insert.group(2);
                    if (other != null && !PIECE_NAMES.contains(other)) {
                        problems.add(where + "${" + other + ":" + name + "} names no piece");
                    } else if (other != null) {
                        if (!sections(other).containsKey(name)) {
                            problems.add(where + "${" + other + ":" + name + "} names no section of decide/" + other
                                    + ".lua");
                        }
                    } else if (!sections.containsKey(name) && !VALUES.contains(name)) {
                        problems.add(where + "${" + name + "} names no section of the piece and no value");
                    }
                    continue;
                }
                if (line.contains("${")) {
                    problems.add(where + "'" + line.strip() + "' is not a line of its own ${name} or ${piece:name}");
                }
                if (line.strip().equals("--- each window")) {
                    open++;
                } else if (line.strip().equals("--- end each")) {
                    open--;
                }
                Matcher expression = EXPRESSION.matcher(line);
                while (expression.find()) {
                    if (!WORKED_OUT.matcher(expression.group(1)).matches()) {
                        problems.add(where + "$(" + expression.group(1) + ") is not an expression in j");
                    }
                }
                String plain = EXPRESSION.matcher(line).replaceAll("");
                Matcher token = TOKEN.matcher(plain);
                while (token.find()) {
                    String name = token.group(1);
                    boolean list = name.equals("or") || name.equals("cat");
                    if (!VALUES.contains(name) && !(list && plain.startsWith("[", token.end()))) {
                        problems.add(where + "$" + name + " names no value");
                    }
                }
            }
            if (open != 0) {
                problems.add(where + "'--- each window' and '--- end each' do not pair");
            }
        });
        return problems;
    }

    private static final String RING = read("ring.lua");

    /** Redis's clock as production scripts read it: {@code clock.lua}, placed where a frame says {@code ${clock}}. */
    static final String REDIS_CLOCK = lines(read("clock.lua"));

    /**
     * A script that changes a limit after its decision ({@code giveback}, {@code charge}, {@code credit} or
     * {@code release}): its frame in {@code decide/after.lua} (a charge's and a credit's in {@code decide/units.lua}),
     * which places the section of the same name of each algorithm's piece, with {@code ring.lua} before it.
     */
    static LuaScript after(String operation) {
        return after(operation, REDIS_CLOCK);
    }

    /** The same script reading the time from {@code clock}, a piece in place of {@code clock.lua} (tests). */
    static LuaScript after(String operation, String clock) {
        String frame = operation.equals("charge") || operation.equals("credit") ? "units" : "after";
        String source = RING + "\n" + section(frame, operation, Map.of("clock", lines(clock)));
        return new LuaScript("ratelimit_" + operation, source, LuaScript.sha1(source), false);
    }

    /** The source of the piece that reads the time into {@code now_us} and {@code now_ms}. */
    private final String clock;

    /** The scripts production runs: Redis's clock read by {@code clock.lua}. */
    DecisionScripts() {
        this(REDIS_CLOCK);
    }

    /**
     * Scripts whose time is read by {@code clock}, a piece in place of {@code clock.lua}: for a test that moves the
     * clock, whose own piece reads the time it sets (no production script reads the time from an argument).
     */
    DecisionScripts(String clock) {
        this.clock = lines(clock);
    }

    /** A piece's text as a section's: ending with a line break. */
    private static String lines(String piece) {
        return piece.endsWith("\n") ? piece : piece + "\n";
    }

    private final Cache<String, LuaScript> scripts = Caffeine.newBuilder()
            .maximumSize(MAX_SHAPES)
            .executor(Runnable::run)
            .build();
    private final AtomicInteger assembled = new AtomicInteger();

    /** The script for a call given these arguments: its number of keys, then one spec per key (see decide.lua). */
    LuaScript forCall(List<String> args) {
        return forShape(shape(args));
    }

    /**
     * Lines a script may have at most with a loop over its calls: Lua refuses a loop whose body is too long to jump over
     * ("control structure too long"), which a script of about 28,000 lines meets. 64 keys of a sliding window with every
     * option, 16 keys of 16 windows, or 96 keys of six kinds fit (counted by {@code DecisionScriptsTest}); a wider
     * shape's script decides one call per script call, without a loop ({@link LuaScript#oneCallEach}).
     */
    static final int MAX_LINES = 20_000;

    /**
     * Locals a script of its own may declare at most, as {@link #locals} counts them. Lua allows a function 200 active
     * locals, and a shape's script keeps each key's values in locals: about 9 keys of one sliding window, 13 fixed
     * windows or 6 keys of three windows fit (counted by {@code DecisionScriptsTest}); a wider call keeps them in a
     * table ({@link #tabled}). The count leaves out the locals of the blocks inside the loop over calls, which Lua
     * counts too: up to 8 more in the scripts {@code DecisionScriptsTest} loads at the bound of each kind. So the bound
     * leaves 15. (A declaration followed by a comment and no value, {@code local tat1, frac1 -- ...}, was once not
     * counted: the shape {@code w2.w3.w10.w2.3.1} was counted 190 with 201 in Lua's count, and Redis refused it.)
     */
    static final int LOCALS = 185;

    /** The script for a shape as {@link #shape} names it. */
    LuaScript forShape(String shape) {
        return scripts.get(shape, s -> {
            // the form (locals or a table, a loop over calls or one call) is the production script's, whatever the
            // clock: a test's scripts take the forms that production's take
            String production = assemble(s, false, false, REDIS_CLOCK);
            boolean wide = locals(production) > LOCALS;
            if (wide) {
                production = tabled(assemble(s, true, false, REDIS_CLOCK));
            }
            boolean alone = production.chars().filter(c -> c == '\n').count() > MAX_LINES;
            if (alone) {
                production = tabled(assemble(s, true, true, REDIS_CLOCK));
            }
            String source = clock.equals(REDIS_CLOCK)
                    ? production
                    : alone || wide ? tabled(assemble(s, true, alone, clock)) : assemble(s, false, false, clock);
            // DEBUG: a shape first met at run time is assembled on the caller's thread, maybe an event loop's, where
            // writing a log line at the default level would block
            log.debug(
                    "Rate limit decision script assembled for calls of the shape {} ({} so far, at most {} kept)",
                    s,
                    assembled.incrementAndGet(),
                    MAX_SHAPES);
            return new LuaScript("ratelimit[" + s + "]", source, LuaScript.sha1(source), alone);
        });
    }

    private static final Pattern LOCAL =
            Pattern.compile("^ {0,4}local\\s+(function\\s+\\w+|[A-Za-z_][\\w\\s,]*?)\\s*(=.*|--.*)?$");

    /**
     * The locals a script declares at the top of its main function or of its loop over calls (each key's values), a
     * little more than Lua counts (ring.lua's functions' own are counted too): what bounds a shape's width.
     */
    static int locals(String source) {
        int locals = 0;
        for (String line : source.split("\n")) {
            Matcher m = LOCAL.matcher(line);
            if (m.matches()) {
                locals += m.group(1).startsWith("function") ? 1 : m.group(1).split(",").length;
            }
        }
        return locals;
    }

    private static final Pattern KEYS_LOCAL =
            Pattern.compile("^( {0,4})local\\s+([A-Za-z_]\\w*\\d(?:\\s*,\\s*[A-Za-z_]\\w*\\d)*)\\s*(=.*)?$");

    /**
     * A script too wide for Lua's 200 locals, made to fit: the values of each key, the locals whose names end in its
     * position (or window), become fields of one table {@code L}. A declaration without a value sets them to nil, as a
     * local's would be; everything else reads as before. Only a wide call pays for the table's lookups.
     */
    static String tabled(String source) {
        List<String> names = new ArrayList<>();
        StringBuilder out = new StringBuilder("local L = {} -- the values of each key (a call too wide for locals)\n");
        for (String line : source.split("\n", -1)) {
            Matcher m = KEYS_LOCAL.matcher(line);
            if (m.matches()) {
                List<String> declared = List.of(m.group(2).split("\\s*,\\s*"));
                names.addAll(declared);
                out.append(m.group(1)).append(m.group(2)).append(m.group(3) == null ? " = nil" : " " + m.group(3));
            } else {
                out.append(line);
            }
            out.append('\n');
        }
        if (names.isEmpty()) {
            return source;
        }
        Set<String> keyed = new HashSet<>(names);
        return replace(
                NAME,
                out.substring(0, out.length() - 1),
                m -> keyed.contains(m.group(1)) ? "L." + m.group(1) : m.group(1));
    }

    /** A name that may be a key's value: not a field, ending in a digit. */
    private static final Pattern NAME = Pattern.compile("(?<![\\w.])([A-Za-z_]\\w*\\d)\\b");

    /** How many scripts were assembled so far (one per shape met, again after an eviction). */
    int assembled() {
        return assembled.get();
    }

    /**
     * A call's shape: one token per spec, joined by {@code '.'}: {@code w<n>} for a key of n sliding windows, else the
     * algorithm's digit followed by {@code o} (options), {@code a} (staggered advice), {@code h} (a refused call may
     * hold a slot) and {@code p} (a penalty) where the spec has them; {@code ?} for a spec that is none of these (its script refuses it, naming the key).
     */
    static String shape(List<String> args) {
        StringBuilder shape = new StringBuilder(8 * args.size());
        for (int i = 1; i < args.size(); i++) {
            if (i > 1) {
                shape.append('.');
            }
            token(args.get(i), shape);
        }
        return shape.toString();
    }

    private static void token(String spec, StringBuilder shape) {
        char algorithm = spec.isEmpty() ? '?' : spec.charAt(0);
        if (spec.length() < 2 || spec.charAt(1) != ',') {
            shape.append('?');
        } else if (algorithm == '4') {
            int commas = 0;
            for (int c = 0; c < spec.length(); c++) {
                commas += spec.charAt(c) == ',' ? 1 : 0;
            }
            int windows = (commas - 1) / 2;
            if (commas % 2 == 1 && windows >= 2 && windows <= ScriptCallKeys.MAX_WINDOWS_IN_ONE_KEY) {
                shape.append('w').append(windows);
            } else {
                shape.append('?');
            }
        } else if (algorithm == '1' || algorithm == '2' || algorithm == '3' || algorithm == '5') {
            shape.append(algorithm);
            int options = spec.indexOf('|');
            int flags = field(spec, 4, options < 0 ? spec.length() : options);
            if (options > 0) {
                shape.append('o');
            }
            if (flags >= 0 && (flags & 2) != 0) {
                shape.append('a');
            }
            if (flags >= 0 && (flags & 8) != 0) {
                shape.append('h');
            }
            if (options > 0 && field(spec, 1, spec.length(), options + 1) > 0) {
                shape.append('p');
            }
        } else {
            shape.append('?');
        }
    }

    /** The number in comma-separated field {@code index} (from 0) before {@code end}, or -1. */
    private static int field(String spec, int index, int end) {
        return field(spec, index, end, 0);
    }

    private static int field(String spec, int index, int end, int from) {
        int at = from;
        for (int f = 0; f < index; f++) {
            at = spec.indexOf(',', at) + 1;
            if (at == 0 || at >= end) {
                return -1;
            }
        }
        int value = 0;
        int digits = 0;
        for (; at < end && spec.charAt(at) != ',' && digits < 9; at++, digits++) {
            char c = spec.charAt(at);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return digits == 0 ? -1 : value;
    }

    /** One key of a shape. */
    private record Kind(
            String token, char algorithm, boolean options, boolean advice, boolean hold, boolean penalty, int windows) {

        static Kind of(String token) {
            if (token.startsWith("w")) {
                return new Kind(token, 'w', false, false, false, false, Integer.parseInt(token.substring(1)));
            }
            return new Kind(
                    token,
                    token.charAt(0),
                    token.indexOf('o') > 0,
                    token.indexOf('a') > 0,
                    token.indexOf('h') > 0,
                    token.indexOf('p') > 0,
                    1);
        }

        /** A key whose refused call may hold a slot: a sliding window with staggered advice (see decide.lua). */
        boolean holds() {
            return hold && advice && algorithm == '1';
        }

        boolean known() {
            return algorithm != '?' && (algorithm != '5' || options);
        }

        /** Key names this key takes in KEYS: its own, its advice cursor, its penalty box. */
        int names() {
            return 1 + (advice ? 1 : 0) + (penalty ? 1 : 0);
        }

        /** Answers this key gives: one per window. */
        int answers() {
            return windows;
        }

        String piece() {
            return switch (algorithm) {
                case '1' -> "sliding";
                case '2' -> "fixed";
                case '3' -> "bucket";
                case '5' -> "calendar";
                default -> "windows";
            };
        }
    }

    /** The script of a shape (see the class comment). */
    static String assemble(String shape) {
        return assemble(shape, false);
    }

    /**
     * The script of a shape; a wide one ({@link #tabled}) writes what each key of several windows kept at the end of
     * each call, so that no position need look for its key kept at another (a check that grows as the square of the
     * width).
     */
    static String assemble(String shape, boolean wide) {
        return assemble(shape, wide, false);
    }

    /**
     * The same; {@code alone}: a script that decides one call per script call, without a loop over calls (see
     * {@link #MAX_LINES}).
     */
    static String assemble(String shape, boolean wide, boolean alone) {
        return assemble(shape, wide, alone, REDIS_CLOCK);
    }

    /** The same, its time read by {@code clock} (see {@link #DecisionScripts(String)}). */
    static String assemble(String shape, boolean wide, boolean alone, String clock) {
        List<Kind> kinds = new ArrayList<>();
        for (String token : shape.split("\\.")) {
            kinds.add(Kind.of(token));
        }
        int keys = kinds.stream().mapToInt(Kind::names).sum();
        int answers = kinds.stream().mapToInt(Kind::answers).sum();
        Map<String, String> global = Map.of(
                "positions",
                Integer.toString(kinds.size()),
                "keys",
                Integer.toString(keys),
                "answers",
                Integer.toString(answers),
                "common",
                "%d,".repeat(answers + 1) + "%d",
                "loop",
                alone ? "do local c = 1" : "for c = 1, calls do",
                "most",
                alone ? "1" : "math.huge",
                "clock",
                lines(clock));
        boolean known = kinds.stream().allMatch(Kind::known);
        boolean rings = known && kinds.stream().anyMatch(k -> k.algorithm() == '1' || k.algorithm() == 'w');
        boolean sliding = known && kinds.stream().anyMatch(k -> k.algorithm() == '1');
        // a refused call holds a slot only when every key can: each is then written dated at that slot
        boolean holding = known && kinds.stream().allMatch(Kind::holds);
        List<Map<String, String>> tokens = tokens(kinds, global, wide);

        StringBuilder s = new StringBuilder("-- ratelimit decision script for calls of the shape ")
                .append(shape)
                .append(" (assembled by DecisionScripts from decide/*.lua)\n");
        s.append(section("decide", "head", global));
        if (rings) {
            s.append(RING).append('\n').append(section("decide", "ring", global));
        }
        if (sliding) {
            s.append(section("sliding", "state", global));
        }
        if (known && kinds.stream().anyMatch(k -> k.algorithm() == '3')) {
            s.append(section("bucket", "time", global));
        }
        List<String> declared = new ArrayList<>();
        for (int i = 0; i < kinds.size(); i++) {
            if (!declared.contains(kinds.get(i).token())) {
                declared.add(kinds.get(i).token());
                s.append(section("spec", "declare", tokens.get(i))); // one table of specs per kind
            }
            if (kinds.get(i).algorithm() == 'w') {
                s.append(section("windows", "declare", tokens.get(i)));
            }
        }
        s.append(section("decide", "check", global));
        for (int i = 0; i < kinds.size(); i++) {
            Kind kind = kinds.get(i);
            String part =
                    !kind.known() ? "unknown" : kind.algorithm() == 'w' ? "spec" : kind.options() ? "options" : "plain";
            s.append(section(kind.algorithm() == 'w' ? "windows" : "spec", part, tokens.get(i)));
        }
        s.append(section("decide", "check end", global));
        if (known) {
            s.append(section("decide", "call", global));
            for (int i = 0; i < kinds.size(); i++) {
                Kind kind = kinds.get(i);
                Map<String, String> t = tokens.get(i);
                if (kind.algorithm() == 'w') {
                    s.append(section("windows", "check", t));
                    continue;
                }
                s.append(section("spec", "key", t)).append(section(kind.piece(), "check", t));
                if (kind.penalty()) {
                    s.append(section("penalty", "check", t));
                }
                s.append(section("spec", "refused", t));
            }
            if (holding) {
                s.append(section("decide", "hold", global));
                for (int i = 0; i < kinds.size(); i++) {
                    s.append(section("advice", "hold", tokens.get(i)));
                }
                s.append(section("decide", "hold end", global));
            }
            s.append(section("decide", "commit", global));
            for (int i = 0; i < kinds.size(); i++) {
                Kind kind = kinds.get(i);
                Map<String, String> t = tokens.get(i);
                if (kind.algorithm() == 'w') {
                    s.append(section("windows", "commit", t));
                } else {
                    s.append(section("spec", "took", t))
                            .append(section(kind.algorithm() == '5' ? "fixed" : kind.piece(), "commit", t));
                }
            }
            s.append(section("decide", "answers", global));
            for (int i = 0; i < kinds.size(); i++) {
                Kind kind = kinds.get(i);
                Map<String, String> t = tokens.get(i);
                if (kind.algorithm() == 'w') {
                    s.append(section("windows", "answer", t));
                    continue;
                }
                if (kind.penalty()) {
                    s.append(section("penalty", "answer", t));
                }
                if (kind.advice() && !holding) {
                    s.append(section("advice", "answer", t));
                }
                s.append(section("spec", "answer", t));
            }
            s.append(section("decide", "reply", global));
            for (int i = 0; wide && i < kinds.size(); i++) {
                if (kinds.get(i).algorithm() == 'w') {
                    s.append(section("windows", "finish", tokens.get(i)))
                            .append("    kept")
                            .append(i + 1)
                            .append(" = nil\n");
                }
            }
            s.append(section("decide", "next", global));
            if (sliding) {
                s.append(section("sliding", "finish", global));
            }
            for (int i = 0; i < kinds.size(); i++) {
                if (kinds.get(i).algorithm() == 'w') {
                    s.append(section("windows", "finish", tokens.get(i)));
                }
            }
        }
        s.append(section("decide", "tail", global));
        return s.toString();
    }

    /** Each key's tokens: its position, where its key names are, its kind's constants. */
    private static List<Map<String, String>> tokens(List<Kind> kinds, Map<String, String> global, boolean wide) {
        List<Map<String, String>> all = new ArrayList<>();
        int name = 1;
        int answer = 1;
        for (int i = 0; i < kinds.size(); i++) {
            Kind kind = kinds.get(i);
            Map<String, String> t = new LinkedHashMap<>(global);
            t.put("i", Integer.toString(i + 1));
            t.put("kind", kind.known() ? kind.token() : "unknown");
            t.put("k", Integer.toString(name));
            t.put("cursor", Integer.toString(name + 1));
            t.put("box", Integer.toString(name + (kind.advice() ? 2 : 1)));
            t.put("position", Integer.toString(answer));
            t.put("algorithm", kind.algorithm() == '?' ? "0" : String.valueOf(kind.algorithm()));
            t.put("advice", Boolean.toString(kind.advice()));
            t.put("hold", Boolean.toString(kind.hold()));
            t.put("penalty", Boolean.toString(kind.penalty()));
            t.put(
                    "forget",
                    kind.algorithm() == '1' ? section("sliding", "forget", t).strip() : "");
            int n = kind.windows();
            t.put("windows", Integer.toString(n));
            t.put("values", Integer.toString(1 + 2 * n));
            t.put("base", Integer.toString(20 + 10 * n));
            t.put("last", Integer.toString(19 + 10 * n));
            t.put("format", ">I4I4I6I6" + "I4I6".repeat(n));
            all.add(t);
            name += kind.names();
            answer += kind.answers();
        }
        for (int i = 0; i < kinds.size(); i++) {
            StringBuilder others = new StringBuilder();
            for (int j = 0; j < kinds.size(); j++) {
                if (!wide
                        && j != i
                        && kinds.get(i).algorithm() == 'w'
                        && kinds.get(j).algorithm() == 'w') {
                    // the key may be kept at another position (by an earlier call of the batch): written back first
                    others.append("if kn")
                            .append(i + 1)
                            .append(" == kept")
                            .append(j + 1)
                            .append(" then\n");
                    others.append(section("windows", "flush", all.get(j)));
                    others.append("kept").append(j + 1).append(" = nil\nend\n");
                }
            }
            all.get(i).put("others", others.toString());
        }
        return all;
    }

    private static final Pattern INSERT = Pattern.compile("^\\s*\\$\\{(?:(\\w+):)?(\\w+)}\\s*$");
    private static final Pattern TOKEN = Pattern.compile("\\$([a-z]+)");
    private static final Pattern LIST = Pattern.compile("\\$(or|cat)?\\[([^\\]]*)]");
    private static final Pattern EXPRESSION = Pattern.compile("\\$\\(([^)]*)\\)");

    /** A section of a piece with its tokens replaced. */
    static String section(String piece, String name, Map<String, String> tokens) {
        String text = sections(piece).get(name);
        if (text == null) {
            throw new IllegalStateException("No section '" + name + "' in decide/" + piece + ".lua");
        }
        StringBuilder out = new StringBuilder();
        expand(piece, text.split("\n", -1), 0, -1, tokens, 0, out);
        return out.toString();
    }

    /** Lines {@code from} to {@code to} (exclusive; -1: all) expanded for window {@code j} (0: none) into out. */
    private static void expand(
            String piece, String[] lines, int from, int to, Map<String, String> tokens, int j, StringBuilder out) {
        int end = to < 0 ? lines.length : to;
        int windows = Integer.parseInt(tokens.getOrDefault("windows", "1"));
        for (int l = from; l < end; l++) {
            String line = lines[l];
            Matcher insert = INSERT.matcher(line);
            if (line.strip().equals("--- each window")) {
                int close = l + 1;
                while (!lines[close].strip().equals("--- end each")) {
                    close++;
                }
                for (int w = 1; w <= windows; w++) {
                    expand(piece, lines, l + 1, close, tokens, w, out);
                }
                l = close;
            } else if (insert.matches()) {
                String inserted = insert.group(2);
                if (insert.group(1) != null) {
                    out.append(section(insert.group(1), inserted, tokens));
                } else {
                    out.append(tokens.containsKey(inserted) ? tokens.get(inserted) : section(piece, inserted, tokens));
                }
            } else if (l < lines.length - 1 || !line.isEmpty()) {
                out.append(line(line, tokens, j)).append('\n');
            }
        }
    }

    /** One line with its lists repeated, its expressions in {@code j} worked out and its tokens replaced. */
    private static String line(String line, Map<String, String> tokens, int j) {
        int windows = Integer.parseInt(tokens.getOrDefault("windows", "1"));
        String text = replace(LIST, line, m -> {
            List<String> items = new ArrayList<>();
            for (int w = 1; w <= windows; w++) {
                items.add(line(m.group(2), tokens, w));
            }
            return String.join(m.group(1) == null ? ", " : m.group(1).equals("or") ? " or " : "", items);
        });
        text = replace(EXPRESSION, text, m -> Integer.toString(evaluate(m.group(1), v -> j)));
        return replace(TOKEN, text, m -> {
            if (m.group(1).equals("j") && j > 0) {
                return Integer.toString(j);
            }
            String value = tokens.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("No value for $" + m.group(1) + " in: " + line);
            }
            return value;
        });
    }

    private static String replace(Pattern pattern, String text, java.util.function.Function<Matcher, String> by) {
        Matcher m = pattern.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(by.apply(m)));
        }
        return m.appendTail(out).toString();
    }

    /** An integer expression of {@code +}, {@code -}, {@code *}, numbers and {@code j}. */
    static int evaluate(String expression, IntUnaryOperator j) {
        int total = 0;
        for (String term : expression.replace(" ", "").replace("-", "+-").split("\\+")) {
            if (term.isEmpty()) {
                continue;
            }
            int product = 1;
            for (String factor : term.split("\\*")) {
                boolean negative = factor.startsWith("-");
                String f = negative ? factor.substring(1) : factor;
                int value = f.equals("j") ? j.applyAsInt(0) : Integer.parseInt(f);
                product *= negative ? -value : value;
            }
            total += product;
        }
        return total;
    }

    private static Map<String, String> sections(String piece) {
        Map<String, String> sections = PIECES.get(piece);
        if (sections == null) {
            throw new IllegalStateException("No Lua piece decide/" + piece + ".lua");
        }
        return sections;
    }

    /** A piece's sections by name: each from a line {@code --- name} to the next (the text before the first is its doc). */
    static Map<String, String> parse(String piece) {
        Map<String, String> sections = new LinkedHashMap<>();
        String name = null;
        StringBuilder text = new StringBuilder();
        for (String line : piece.split("\n", -1)) {
            if (line.startsWith("--- ")) {
                if (name != null) {
                    sections.put(name, text.toString().stripTrailing() + "\n");
                }
                name = line.substring(4).strip();
                text.setLength(0);
            } else if (name != null) {
                text.append(line).append('\n');
            }
        }
        if (name != null) {
            sections.put(name, text.toString().stripTrailing() + "\n");
        }
        return sections;
    }

    private static String read(String resource) {
        return LuaScript.read(DecisionScripts.class, resource);
    }

    // after every pattern above: the pieces are checked as they are read
    static {
        for (String piece : PIECE_NAMES) {
            PIECES.put(piece, parse(read("decide/" + piece + ".lua")));
        }
        // once all are read: a piece may place a section of another
        PIECES.forEach((piece, sections) -> {
            List<String> problems = problems(piece, sections);
            if (!problems.isEmpty()) {
                throw new IllegalStateException(String.join("; ", problems));
            }
        });
    }
}
