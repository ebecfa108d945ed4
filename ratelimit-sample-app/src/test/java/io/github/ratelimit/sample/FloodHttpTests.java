package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.test.support.RawRedis;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * One client hammering /api/hello (5 per second) on 16 connections: once Redis has refused it, the instance refuses
 * it in the JVM until Redis said it could admit again, so the flood costs Redis a handful of script calls a second
 * (counted with INFO commandstats), not one per request.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class FloodHttpTests {

    static final int CONNECTIONS = 16;
    static final long SECONDS = 3;

    @LocalServerPort
    int port;

    @Value("${spring.data.redis.url}")
    String redisUrl;

    static long scriptCalls(int redisPort) {
        String stats = RawRedis.command(redisPort, "INFO", "commandstats");
        long calls = 0;
        for (String command : List.of("cmdstat_evalsha:", "cmdstat_eval:")) {
            int at = stats.indexOf(command);
            if (at >= 0) {
                String rest = stats.substring(stats.indexOf("calls=", at) + 6);
                calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
            }
        }
        return calls;
    }

    @Test
    void aFloodFromOneClientCostsRedisAHandfulOfScriptCallsPerSecond() throws Exception {
        int redisPort = URI.create(redisUrl).getPort();
        AtomicInteger requests = new AtomicInteger();
        AtomicInteger admitted = new AtomicInteger();
        long before = scriptCalls(redisPort);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
        ExecutorService pool = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<?>> floods = new ArrayList<>();
            for (int c = 0; c < CONNECTIONS; c++) {
                floods.add(pool.submit(() -> {
                    while (System.nanoTime() - until < 0) {
                        int status = RawHttp.get("127.0.3.1", port, "/api/hello", Map.of())
                                .status();
                        requests.incrementAndGet();
                        if (status == 200) {
                            admitted.incrementAndGet();
                        } else {
                            assertThat(status).isEqualTo(429);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> flood : floods) {
                flood.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long scripts = scriptCalls(redisPort) - before;
        System.out.printf(
                "flood of /api/hello from one client, %d connections for %d s: %d requests, %d admitted,"
                        + " %d script calls (%.1f per second)%n",
                CONNECTIONS, SECONDS, requests.get(), admitted.get(), scripts, scripts / (double) SECONDS);
        assertThat(requests.get()).isGreaterThan(1_000);
        assertThat(admitted.get()).isBetween(5, 5 * (int) SECONDS + 5);
        assertThat(scripts).as("script calls for the whole flood").isLessThanOrEqualTo(30 * SECONDS);
    }
}
