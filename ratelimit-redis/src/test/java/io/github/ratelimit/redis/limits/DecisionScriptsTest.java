package io.github.ratelimit.redis.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.redis.Guards;
import io.github.ratelimit.redis.internal.LuaScript;
import io.github.ratelimit.test.support.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/** Scripts assembled per shape: every kind of key, alone and together, is a script Redis accepts. */
class DecisionScriptsTest {

    private static RedisProcess redis;
    private static RedissonClient client;

    @BeforeAll
    static void start() {
        redis = RedisProcess.start();
        client = redis.newClient();
    }

    @AfterAll
    static void stop() {
        client.shutdown();
        redis.close();
    }

    @Test
    void aCallsShapeIsReadFromItsSpecs() {
        assertThat(DecisionScripts.shape(List.of("2", "4,1,10,1000,20,60000", "4,1,10,1000,20,60000")))
                .isEqualTo("w2.w2");
        assertThat(DecisionScripts.shape(
                        List.of("3", "1,5,1000,1,0,10000", "2,5,1000,1,2,10000", "3,5,1000,1,0,0|9,0")))
                .isEqualTo("1.2a.3o");
        assertThat(DecisionScripts.shape(List.of("2", "5,5,1000,1,3,0|5,60000,1,2,3,4", "9,1")))
                .isEqualTo("5oap.?");
        assertThat(DecisionScripts.shape(List.of("1", "4,1,5"))).isEqualTo("?");
    }

    @Test
    void everyKindAloneAndTogetherIsAScriptRedisAccepts() {
        RScript script = client.getScript(StringCodec.INSTANCE);
        for (String shape : List.of(
                "1",
                "1a",
                "1o",
                "1op",
                "1oap",
                "2",
                "2a",
                "2op",
                "2oap",
                "3",
                "3o",
                "3oap",
                "5o",
                "5oap",
                "w2",
                "w3",
                "w16",
                "w3.w3",
                "1.1a.2.3op.5o.w3.w4",
                "w3.?",
                "?")) {
            String source = DecisionScripts.assemble(shape);

            assertThat(script.scriptLoad(source)).as(shape).isEqualTo(LuaScript.sha1(source));
        }
    }

    /**
     * Lua allows a function 200 locals: a shape whose values do not fit in locals keeps them in a table, and still takes
     * a script of its own, which Redis accepts, up to the widest of each kind the library allows; a wider one (more
     * lines than Lua can loop over) decides one call per script call, without a loop.
     */
    @Test
    void aShapeTooWideForLocalsKeepsItsValuesInATable() {
        RScript script = client.getScript(StringCodec.INSTANCE);
        DecisionScripts scripts = new DecisionScripts();
        for (String kind : List.of("1", "1oap", "1ah", "2oap", "3op", "5oap", "w3", "1.2oap.3o.5o.w3.1ah")) {
            int keys = 1;
            while (DecisionScripts.locals(DecisionScripts.assemble(widths(kind, keys + 1))) <= DecisionScripts.LOCALS) {
                keys++;
            }
            String wider = widths(kind, keys + 1);
            LuaScript widestInLocals = scripts.forShape(widths(kind, keys));
            assertThat(widestInLocals.source()).isEqualTo(DecisionScripts.assemble(widths(kind, keys)));
            assertThat(script.scriptLoad(widestInLocals.source()))
                    .as(widths(kind, keys))
                    .isEqualTo(widestInLocals.sha1());

            LuaScript tabled = scripts.forShape(wider);

            assertThat(tabled.oneCallEach()).as(wider).isFalse();
            assertThat(tabled.source()).as(wider).startsWith("local L = {}");
            assertThat(DecisionScripts.locals(tabled.source())).as(wider).isLessThanOrEqualTo(DecisionScripts.LOCALS);
            assertThat(script.scriptLoad(tabled.source())).as(wider).isEqualTo(tabled.sha1());
        }
        // counted at 190 locals, more than 200 in Lua's count: refused by Redis while the bound was 190
        LuaScript counted190 = scripts.forShape("w2.w3.w10.w2.3.1");
        assertThat(script.scriptLoad(counted190.source())).isEqualTo(counted190.sha1());
        for (String widest : List.of(widths("1oap", 64), widths("w16", 16), widths("1.2oap.3o.5o.w3.1ah", 16))) {
            LuaScript tabled = scripts.forShape(widest);

            assertThat(tabled.oneCallEach()).isFalse();
            assertThat(script.scriptLoad(tabled.source())).isEqualTo(tabled.sha1());
        }
        for (String wider : List.of(widths("w16", 32), widths("1oap", 200), widths("1.2oap.3o.5o.w3.1ah", 40))) {
            LuaScript alone = scripts.forShape(wider);

            assertThat(alone.oneCallEach()).as(wider).isTrue();
            assertThat(alone.source().lines().count()).as(wider).isGreaterThan(DecisionScripts.MAX_LINES);
            assertThat(script.scriptLoad(alone.source())).as(wider).isEqualTo(alone.sha1());
        }
    }

    /**
     * A call of 20 limits of every kind (sliding windows, several windows of one name, fixed windows, token buckets and
     * calendar quotas, with staggered advice and a penalty), too wide for locals, is decided exactly, all or nothing:
     * the calls one limit refuses take nothing from the others.
     */
    @Test
    void aWideCallOfEveryKindIsDecidedAllOrNothing() {
        RedisRateLimiter limiter =
                new RedisRateLimiter(client, "wide:" + UUID.randomUUID() + ":", Guards.patient(), 10, 0);
        List<LimitRequest> call = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            call.add(LimitRequest.of(RateLimit.of("sliding-" + i, Algorithm.SLIDING_WINDOW, 5, 60_000), "client", 1)
                    .asStaggered(i % 2 == 0));
            call.add(LimitRequest.of(RateLimit.of("fixed-" + i, Algorithm.FIXED_WINDOW, 5, 60_000), "client", 1)
                    .asStaggered(i == 1));
            call.add(LimitRequest.of(RateLimit.of("bucket-" + i, Algorithm.TOKEN_BUCKET, 5, 60_000), "client", 1));
            call.add(LimitRequest.of(
                    RateLimit.of("calendar-" + i, Algorithm.FIXED_WINDOW, 5, 60_000)
                            .inCalendar(CalendarPeriod.of(CalendarPeriod.Unit.DAY)),
                    "client",
                    1));
        }
        call.add(LimitRequest.of(
                RateLimit.of("penalty", Algorithm.FIXED_WINDOW, 5, 60_000).withPenalty(Duration.ofMinutes(1)),
                "client",
                1));
        call.add(LimitRequest.of(RateLimit.of("windows", Algorithm.SLIDING_WINDOW, 5, 60_000), "client", 1));
        call.add(LimitRequest.of(RateLimit.of("windows", Algorithm.SLIDING_WINDOW, 20, 600_000), "client", 1));
        call.add(LimitRequest.of(RateLimit.of("tight", Algorithm.SLIDING_WINDOW, 2, 60_000), "client", 1));
        String shape = WideCalls.shapeOnOneRedis(call);
        assertThat(DecisionScripts.locals(DecisionScripts.assemble(shape)))
                .as(shape)
                .isGreaterThan(DecisionScripts.LOCALS);

        List<Boolean> admitted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            admitted.add(limiter.tryAcquire(call).allowed());
        }

        assertThat(admitted).containsExactly(true, true, false, false);
        for (int i = 0; i < call.size() - 3; i++) {
            if (call.get(i).limit().algorithm() != Algorithm.TOKEN_BUCKET) {
                assertThat(limiter.usage(call.subList(i, i + 1))
                                .windows()
                                .get(0)
                                .used())
                        .as(call.get(i).limit().name())
                        .isEqualTo(2);
            }
        }
        assertThat(limiter.usage(call.subList(call.size() - 3, call.size() - 1)).windows())
                .extracting(w -> w.used())
                .as("the windows of one name, in one key")
                .containsExactly(2L, 2L);
    }

    private static String widths(String kind, int keys) {
        return String.join(".", java.util.Collections.nCopies(keys, kind));
    }

    /**
     * Every piece is one a reader holds in one sitting: at most 160 lines, no section over 60 lines, and ring.lua's
     * functions at most 60 lines each.
     */
    @Test
    void everyPieceIsShort() {
        List<String> files = new ArrayList<>();
        for (String piece : DecisionScripts.PIECE_NAMES) {
            files.add("decide/" + piece + ".lua");
        }
        files.add("ring.lua");
        for (String file : files) {
            String text = LuaScript.read(DecisionScripts.class, file);
            assertThat(text.lines().count()).as(file).isLessThanOrEqualTo(160);
            DecisionScripts.parse(text)
                    .forEach((section, body) -> assertThat(body.lines().count())
                            .as(file + ", " + section)
                            .isLessThanOrEqualTo(60));
            List<String> lines = text.lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                java.util.regex.Matcher function = java.util.regex.Pattern.compile("^(\\s*)local function (\\w+)")
                        .matcher(lines.get(i));
                if (function.find()) {
                    int end = lines.subList(i, lines.size()).indexOf(function.group(1) + "end");
                    assertThat(end + 1).as(file + ", " + function.group(2)).isBetween(2, 60);
                }
            }
        }
    }

    /** A piece is checked as it is read: what it names must exist, so a typo fails at load, not in a decision. */
    @Test
    void aPieceThatNamesAnUnknownSectionOrValueIsRefused() {
        String piece = "-- a piece\n"
                + "--- check\n"
                + "    local x$i = $limit\n"
                + "    ${fetch}\n"
                + "    --- each window\n"
                + "    local y = $(2 * j + k)\n"
                + "--- fetch\n"
                + "    local z$i = $or[a$j]\n";

        assertThat(DecisionScripts.problems("test", DecisionScripts.parse(piece)))
                .containsExactly(
                        "decide/test.lua, section 'check': $limit names no value",
                        "decide/test.lua, section 'check': $(2 * j + k) is not an expression in j",
                        "decide/test.lua, section 'check': '--- each window' and '--- end each' do not pair");
        assertThat(DecisionScripts.problems("test", DecisionScripts.parse(piece.replace("${fetch}", "${fetched}"))))
                .contains("decide/test.lua, section 'check': ${fetched} names no section of the piece and no value");
        assertThat(DecisionScripts.problems("test", DecisionScripts.parse(piece.replace("${fetch}", "${held:fetch}"))))
                .contains("decide/test.lua, section 'check': ${held:fetch} names no section of decide/held.lua");
        assertThat(DecisionScripts.problems("test", DecisionScripts.parse(piece.replace("${fetch}", "${kept:fetch}"))))
                .contains("decide/test.lua, section 'check': ${kept:fetch} names no piece");
        assertThat(DecisionScripts.problems("test", DecisionScripts.parse(piece.replace("${fetch}", "x = ${fetch}"))))
                .contains("decide/test.lua, section 'check': 'x = ${fetch}' is not a line of its own ${name} or"
                        + " ${piece:name}");
        for (String real : DecisionScripts.PIECE_NAMES) {
            assertThat(DecisionScripts.problems(
                            real,
                            DecisionScripts.parse(LuaScript.read(DecisionScripts.class, "decide/" + real + ".lua"))))
                    .as(real)
                    .isEmpty();
        }
    }

    @Test
    void aShapeIsAssembledOnce() {
        DecisionScripts scripts = new DecisionScripts();

        LuaScript first = scripts.forShape("w3.w3");

        assertThat(scripts.forShape("w3.w3")).isSameAs(first);
        assertThat(scripts.forShape("1")).isNotEqualTo(first);
        assertThat(scripts.assembled()).isEqualTo(2);
        assertThat(first.source()).doesNotContain("GET', box").doesNotContain("calendar");
    }

    /**
     * Only a test's scripts read a clock from an argument: a production decision script sent the test clock's argument
     * first refuses the call and writes nothing, and the same call on the test's scripts is decided at that time.
     */
    @Test
    void aProductionScriptReadsTheTimeFromRedisOnly() {
        String key = "{clock}:" + UUID.randomUUID();
        String spec = "2,5,60000,1,0,0";
        RScript script = client.getScript(StringCodec.INSTANCE);
        LuaScript production = new DecisionScripts().forCall(List.of("1", spec));
        LuaScript tests = TestClock.SCRIPTS.forCall(List.of("1", spec));

        assertThat(production.source()).contains("redis.call('TIME')").doesNotContain("table.remove(ARGV");
        assertThatThrownBy(() -> script.eval(
                        key,
                        RScript.Mode.READ_WRITE,
                        production.source(),
                        RScript.ReturnType.LIST,
                        List.of(key),
                        "1000000000000",
                        "1",
                        "1",
                        spec))
                .hasMessageContaining("ratelimit: ");
        assertThat(client.getKeys().countExists(key)).isZero();
        List<Object> reply = script.eval(
                key,
                RScript.Mode.READ_WRITE,
                tests.source(),
                RScript.ReturnType.LIST,
                List.of(key),
                "1000000000000",
                "1",
                "1",
                spec);
        assertThat(String.valueOf(reply.get(0))).startsWith("1,1000000000000,");
    }

    @Test
    void expressionsInAWindowNumberAreWorkedOut() {
        assertThat(DecisionScripts.evaluate("8 + 2 * j", j -> 3)).isEqualTo(14);
        assertThat(DecisionScripts.evaluate("9 + 2*j - 1", j -> 2)).isEqualTo(12);
        assertThatThrownBy(() -> DecisionScripts.section("decide", "none", java.util.Map.of()))
                .hasMessageContaining("No section 'none' in decide/decide.lua");
    }
}
