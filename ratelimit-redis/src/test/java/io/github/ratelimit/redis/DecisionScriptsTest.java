package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.test.support.RedisProcess;
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
     * Lua allows a function 200 locals: the widest shape of each kind that takes a script of its own loads, and one key
     * more takes the script of any shape, which decides it.
     */
    @Test
    void aShapeTooWideForItsOwnScriptTakesTheScriptOfAnyShape() {
        RScript script = client.getScript(StringCodec.INSTANCE);
        DecisionScripts scripts = new DecisionScripts();
        for (String kind : List.of("1", "1oap", "2", "2oap", "3op", "5oap", "w3", "w16")) {
            int keys = 1;
            while (DecisionScripts.locals(DecisionScripts.assemble(widths(kind, keys + 1))) <= DecisionScripts.LOCALS) {
                keys++;
            }
            String widest = DecisionScripts.assemble(widths(kind, keys));

            assertThat(script.scriptLoad(widest))
                    .as("%d keys of %s", keys, kind)
                    .isEqualTo(LuaScript.sha1(widest));
            assertThat(scripts.forShape(widths(kind, keys)).source()).isEqualTo(widest);
            assertThat(scripts.forShape(widths(kind, keys + 1))).isSameAs(DecisionScripts.ANY_SHAPE);
        }
    }

    /** A call of 20 limits, too wide for a script of its own, is decided exactly, all or nothing. */
    @Test
    void aWideCallIsDecidedAllOrNothing() {
        RedisRateLimiter limiter =
                new RedisRateLimiter(client, "wide:" + UUID.randomUUID() + ":", Guards.patient(), 10, 0);
        List<LimitRequest> call = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            RateLimit limit = RateLimit.of("wide-" + i, Algorithm.SLIDING_WINDOW, i == 19 ? 2 : 5, 60_000);
            call.add(LimitRequest.of(limit, "client", 1));
        }
        assertThat(DecisionScripts.locals(DecisionScripts.assemble(widths("1", 20))))
                .isGreaterThan(DecisionScripts.LOCALS);

        List<Boolean> admitted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            admitted.add(limiter.tryAcquire(call).allowed());
        }

        assertThat(admitted).containsExactly(true, true, false, false);
        assertThat(limiter.usage(call.subList(0, 1)).windows().get(0).used()).isEqualTo(2);
    }

    private static String widths(String kind, int keys) {
        return String.join(".", java.util.Collections.nCopies(keys, kind));
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

    @Test
    void expressionsInAWindowNumberAreWorkedOut() {
        assertThat(DecisionScripts.evaluate("8 + 2 * j", j -> 3)).isEqualTo(14);
        assertThat(DecisionScripts.evaluate("9 + 2*j - 1", j -> 2)).isEqualTo(12);
        assertThatThrownBy(() -> DecisionScripts.section("decide", "none", java.util.Map.of()))
                .hasMessageContaining("No section 'none' in decide/decide.lua");
    }
}
