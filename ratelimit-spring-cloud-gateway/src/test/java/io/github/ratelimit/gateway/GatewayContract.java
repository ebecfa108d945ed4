package io.github.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.fixtures.Causes;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.test.support.RateLimitFields;
import io.github.ratelimit.test.support.RedisProcess;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a gateway route limited by {@code ratelimit.gateway.limits} answers, on a real gateway proxying to a stub
 * upstream, two instances on one real Redis: the same contract on both gateway servers.
 */
abstract class GatewayContract extends GatewayFixture {

    abstract WebApplicationType type();

    abstract Class<?> application();

    /** The routes: {@code /api/**} limited by the limit {@code per-client}, {@code /ruled/**} not limited by the route. */
    abstract Map<String, Object> routes(String upstream, String limits);

    /** The key of {@code per-client} on this server (none on WebFlux: the route's KeyResolver gives it). */
    abstract Map<String, Object> perClientKey();

    /** One gateway instance on {@code redisUrl}, sharing its counts with every instance of the same prefix. */
    ConfigurableApplicationContext instance(String prefix, String redisUrl, String limits) {
        return instance(prefix, redisUrl, limits, Map.of());
    }

    /** One gateway instance, with properties that replace the contract's own. */
    ConfigurableApplicationContext instance(
            String prefix, String redisUrl, String limits, Map<String, Object> replacing) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.data.redis.url", redisUrl);
        properties.put("ratelimit.key-prefix", prefix);
        properties.put("ratelimit.gateway.limits.per-client.limits[0].limit", "5");
        properties.put("ratelimit.gateway.limits.per-client.limits[0].window", "1m");
        properties.put("ratelimit.gateway.limits.per-client.failure-mode", "local");
        properties.putAll(perClientKey());
        properties.put("ratelimit.filter.rules[0].name", "ruled");
        properties.put("ratelimit.filter.rules[0].paths", "/ruled/**");
        properties.put("ratelimit.filter.rules[0].key", "header:X-Client");
        properties.put("ratelimit.filter.rules[0].limits[0].limit", "2");
        properties.put("ratelimit.filter.rules[0].limits[0].window", "1m");
        properties.putAll(routes(upstream.uri(), limits));
        properties.putAll(replacing);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(application())
                .web(type())
                .properties(properties)
                .run();
        started.add(context);
        return context;
    }

    static int port(ConfigurableApplicationContext context) {
        return ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    @Test
    void aRouteAdmitsExactlyItsLimitAcrossTwoInstancesAndAnswersTheRestWith429AndTheFields() throws Exception {
        String prefix = "gw-" + UUID.randomUUID() + ":";
        int[] ports = {
            port(instance(prefix, redis.url(), "per-client")), port(instance(prefix, redis.url(), "per-client"))
        };
        int servedBefore = upstream.served();

        List<HttpResponse<String>> answers = Upstream.atOnce(ports, 20, "/api/items", "alice");

        List<HttpResponse<String>> admitted =
                answers.stream().filter(a -> a.statusCode() == 200).toList();
        List<HttpResponse<String>> refused =
                answers.stream().filter(a -> a.statusCode() == 429).toList();
        System.out.printf(
                "%s gateway, 40 calls at once across two instances on a limit of 5: %d admitted, %d refused (429)%n",
                type(), admitted.size(), refused.size());
        assertThat(admitted).hasSize(5);
        assertThat(refused).hasSize(35);
        assertThat(upstream.served() - servedBefore)
                .as("calls the upstream saw")
                .isEqualTo(5);
        // one item, the limit's name and its key's kind (header x-client, or the route's key)
        String item = fields(admitted.get(0)).names().get(0);
        assertThat(item).startsWith("per-client-");
        assertThat(admitted).allSatisfy(answer -> {
            assertThat(answer.body()).isEqualTo("upstream");
            RateLimitFields fields = fields(answer);
            assertThat(fields.names()).containsExactly(item);
            assertThat(fields.quota(item)).isEqualTo(5);
            assertThat(fields.window(item)).isEqualTo(60);
        });
        HttpResponse<String> refusal = refused.get(0);
        long retryAfter =
                Long.parseLong(refusal.headers().firstValue("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 60L);
        RateLimitFields fields = fields(refusal);
        assertThat(fields.names()).containsExactly(item);
        assertThat(fields.remaining(item)).isZero();
        assertThat(fields.reset(item)).isEqualTo(retryAfter);
        assertThat(refusal.headers().firstValue("Content-Type").orElseThrow()).startsWith("application/problem+json");
        assertThat(refusal.body()).contains("quota-exceeded");

        assertThat(Upstream.get(ports[0], "/api/items", "bob").statusCode())
                .as("another client's first call")
                .isEqualTo(200);
    }

    /**
     * Spring Cloud's refresh (a changed property source, then its {@code EnvironmentChangeEvent}) raises the route's
     * limit from 5 to 7: a client that used its 5 makes exactly 2 more, counted where they were; a refresh with a limit
     * that is not valid is refused as a whole, the raised limit staying.
     */
    @Test
    void aRefreshRaisesARoutesLimitKeepingWhatWasCounted() {
        String prefix = "gw-" + UUID.randomUUID() + ":";
        ConfigurableApplicationContext context = instance(prefix, redis.url(), "per-client");
        int port = port(context);
        List<Integer> before = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            before.add(Upstream.get(port, "/api/items", "carol").statusCode());
        }
        assertThat(before).containsExactly(200, 200, 200, 200, 200, 429);

        // a list is bound from the one source that has it (Boot does not merge lists): the new source has all of it
        Map<String, Object> changed = new java.util.HashMap<>(Map.of(
                "ratelimit.gateway.limits.per-client.limits[0].limit", "7",
                "ratelimit.gateway.limits.per-client.limits[0].window", "1m"));
        context.getEnvironment()
                .getPropertySources()
                .addFirst(new org.springframework.core.env.MapPropertySource("refreshed", changed));
        context.publishEvent(new org.springframework.cloud.context.environment.EnvironmentChangeEvent(
                context, java.util.Set.of("ratelimit.gateway.limits.per-client.limits[0].limit")));

        List<Integer> after = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            after.add(Upstream.get(port, "/api/items", "carol").statusCode());
        }
        assertThat(after).containsExactly(200, 200, 429);

        changed.put("ratelimit.gateway.limits.per-client.limits[0].limit", "0");
        context.publishEvent(new org.springframework.cloud.context.environment.EnvironmentChangeEvent(
                context, java.util.Set.of("ratelimit.gateway.limits.per-client.limits[0].limit")));
        assertThat(Upstream.get(port, "/api/items", "dave").statusCode())
                .as("an invalid limit refused: the route still limits")
                .isEqualTo(200);
        RateLimitFields fields = fields(Upstream.get(port, "/api/items", "dave"));
        assertThat(fields.quota(fields.names().get(0))).isEqualTo(7);
    }

    @Test
    void pathRulesStillApplyInFrontOfRoutes() {
        String prefix = "gw-" + UUID.randomUUID() + ":";
        int port = port(instance(prefix, redis.url(), "per-client"));
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            statuses.add(Upstream.get(port, "/ruled/items", "alice").statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 429, 429);
    }

    @Test
    void whenRedisIsDownEachInstanceKeepsItsShareInMemory() {
        try (RedisProcess own = RedisProcess.start()) {
            String prefix = "gw-" + UUID.randomUUID() + ":";
            int[] ports = {
                port(instance(prefix, own.url(), "per-client")), port(instance(prefix, own.url(), "per-client"))
            };
            assertThat(Upstream.get(ports[0], "/api/items", "warm-up").statusCode())
                    .isEqualTo(200);
            own.crash();
            int admitted = 0;
            int refused = 0;
            for (int port : ports) {
                int admittedHere = 0;
                for (int i = 0; i < 10; i++) {
                    HttpResponse<String> answer = Upstream.get(port, "/api/items", "carol");
                    if (answer.statusCode() == 200) {
                        admittedHere++;
                    } else {
                        assertThat(answer.statusCode()).isEqualTo(429);
                        assertThat(answer.headers().firstValue("Retry-After")).isPresent();
                        refused++;
                    }
                }
                assertThat(admittedHere)
                        .as("admitted by one instance alone, on its share of the limit")
                        .isBetween(1, 5);
                admitted += admittedHere;
            }
            System.out.printf(
                    "%s gateway, Redis down: 20 calls on two instances, %d admitted from memory, %d refused%n",
                    type(), admitted, refused);
            assertThat(refused).as("refused from memory").isGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void aRouteNamingAnUnknownLimitFailsTheStartNamingTheRouteAndTheLimits() {
        assertThatThrownBy(() -> instance("gw-" + UUID.randomUUID() + ":", redis.url(), "per-client, per-clinet"))
                .satisfies(failure ->
                        assertThat(chain(failure)).hasAtLeastOneElementOfType(InvalidFilterRuleException.class))
                .satisfies(failure -> assertThat(Causes.messages(failure))
                        .contains("'per-clinet'")
                        .contains("[per-client]")
                        .contains("route 'api'"));
    }

    /**
     * A gateway limit that cannot work (a limit of 0) fails the start naming its property, and the failed start leaves
     * no ERROR behind it: a client stopped with the context is not asked to start again (it used to log Redisson's
     * "cannot be started once stopped").
     */
    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aBadGatewayLimitFailsTheStartNamingItsPropertyAndNothingElseComplains(CapturedOutput output) {
        java.util.Set<Thread> before = Thread.getAllStackTraces().keySet();
        assertThatThrownBy(() -> instance(
                        "gw-" + UUID.randomUUID() + ":",
                        redis.url(),
                        "per-client",
                        Map.of("ratelimit.gateway.limits.per-client.limits[0].limit", "0")))
                .satisfies(failure -> assertThat(Causes.messages(failure))
                        .contains("ratelimit.gateway.limits.per-client.limits[0].limit must be at least 1, but was 0"));
        // every thread the failed start made (the client's, the connector's, the announcers') ends: none is left to
        // complain later
        java.util.function.Supplier<List<String>> left = () -> Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> !before.contains(thread))
                .map(Thread::getName)
                .filter(name -> name.startsWith("ratelimit-") || name.startsWith("redisson-"))
                .filter(name -> !name.equals("ratelimit-budget-timer")) // one for the JVM, by design
                .toList();
        try {
            io.github.ratelimit.test.kit.Poll.until(
                    "the threads of the failed start to end", java.time.Duration.ofSeconds(20), () -> left.get()
                            .isEmpty());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": " + left.get(), e);
        }
        assertThat(output.getOut() + output.getErr())
                .doesNotContain("cannot be started once stopped")
                .doesNotContain("Exception in thread");
    }

    static List<Throwable> chain(Throwable failure) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = failure; cause != null && !chain.contains(cause); cause = cause.getCause()) {
            chain.add(cause);
        }
        return chain;
    }

    static RateLimitFields fields(HttpResponse<String> answer) {
        return RateLimitFields.parse(
                answer.headers().firstValue("RateLimit-Policy").orElseThrow(),
                answer.headers().firstValue("RateLimit").orElseThrow());
    }
}
