package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** One worker per user: a second request for the same user gets 409 with Retry-After, another user proceeds. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WorkerHttpTests {

    @LocalServerPort
    int port;

    @Autowired
    RedissonClient redisson;

    /** How many worker locks exist in Redis (key layout from the README: <prefix>{<tag>}:lock). */
    long heldLocks() {
        return redisson.getScript(StringCodec.INSTANCE)
                .<Long>eval(
                        RScript.Mode.READ_ONLY,
                        "return #redis.call('KEYS', ARGV[1])",
                        RScript.ReturnType.LONG,
                        java.util.List.of(),
                        "ratelimit:*:lock");
    }

    RawHttp.Response post(String path) {
        return RawHttp.post("127.0.0.51", port, path, Map.of(), null);
    }

    @Test
    void oneWorkerPerUser() throws Exception {
        String user = "u-" + UUID.randomUUID();
        CompletableFuture<RawHttp.Response> first =
                CompletableFuture.supplyAsync(() -> post("/api/workers/" + user + "?durationMs=1500"));

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (heldLocks() == 0) {
            assertThat(first.isDone()).as("the first worker still running").isFalse();
            assertThat(System.nanoTime())
                    .as("the first worker to hold the lock")
                    .isLessThan(deadline);
            Thread.onSpinWait();
        }
        RawHttp.Response busy = post("/api/workers/" + user + "?durationMs=0");
        RawHttp.Response otherUser = post("/api/workers/other-" + UUID.randomUUID() + "?durationMs=0");
        RawHttp.Response done = first.get(20, TimeUnit.SECONDS);

        assertThat(busy.status()).as("a request while the first worker runs").isEqualTo(409);
        assertThat(busy.header("Retry-After")).matches("[1-5]");
        assertThat(busy.header("Content-Type")).startsWith("application/problem+json");
        assertThat(busy.body()).contains("\"status\":409");
        assertThat(otherUser.status()).isEqualTo(200);
        assertThat(done.status()).isEqualTo(200);
        assertThat(done.body())
                .contains("\"userId\":\"" + user + "\"")
                .containsPattern("\"fencingToken\":\\d+")
                .contains("\"stillHeld\":true");
        RawHttp.Response after = post("/api/workers/" + user + "?durationMs=0");
        assertThat(after.status()).isEqualTo(200);
        assertThat(fencingToken(after.body())).isGreaterThan(fencingToken(done.body()));
    }

    static long fencingToken(String body) {
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("\"fencingToken\":(\\d+)").matcher(body);
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }
}
