package io.github.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.fixtures.RedisCommands;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The gateway YAML of docs/stacks.md (section "Spring Cloud Gateway"), read from the page itself and run as printed on both
 * gateway servers: the only change is the route's {@code uri}, {@code http://backend:8080}, which becomes a stub
 * upstream. WebFlux gets the {@code userKey} resolver the YAML names (the X-Client header); each server is started
 * alone (both are on this module's test classpath). On each, a burst of one client's calls admits exactly the
 * snippet's 5 per second and answers the rest 429; on WebFlux the fields name the tightest limit, counted by the
 * {@code userKey} resolver's key; on Web MVC the shortcut form {@code RateLimits=per-client} counts the client.
 */
class GatewayDocsSnippetTest extends GatewayFixture {

    /** The first YAML block after the page's heading "## Spring Cloud Gateway", as printed. */
    static String docsYaml() throws IOException {
        String page = Files.readString(page());
        int section = page.indexOf("\n## Spring Cloud Gateway\n");
        assertThat(section).as("the gateway section of docs/stacks.md").isPositive();
        int start = page.indexOf("```yaml\n", section) + "```yaml\n".length();
        int end = page.indexOf("```", start);
        assertThat(page.indexOf("\n##", section + 1))
                .as("the YAML block inside the section")
                .isGreaterThan(end);
        return page.substring(start, end);
    }

    private static Path page() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("docs/stacks.md"))
                    && Files.isDirectory(dir.resolve("ratelimit-core"))) {
                return dir.resolve("docs/stacks.md");
            }
        }
        throw new AssertionError("docs/stacks.md not found above " + Path.of("").toAbsolutePath());
    }

    private ConfigurableApplicationContext start(
            Class<?> application, WebApplicationType type, Map<String, Object> onlyThisServer) throws IOException {
        String yaml = docsYaml();
        assertThat(yaml).contains("http://backend:8080");
        Path file = Files.createTempFile("docs-gateway", ".yml");
        Files.writeString(file, yaml.replace("http://backend:8080", upstream.uri()));
        file.toFile().deleteOnExit();
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("spring.data.redis.url", redis.url());
        properties.put("ratelimit.key-prefix", "readme-" + UUID.randomUUID() + ":");
        properties.put("spring.config.import", "file:" + file.toAbsolutePath());
        properties.putAll(onlyThisServer);
        ConfigurableApplicationContext context = new SpringApplicationBuilder(application)
                .web(type)
                .properties(properties)
                .run();
        started.add(context);
        return context;
    }

    @Test
    void theReadmesWebFluxRouteAdmitsFivePerSecondPerResolvedKey() throws Exception {
        ConfigurableApplicationContext gateway = start(WebFluxGateway.class, WebApplicationType.REACTIVE, ONLY_WEBFLUX);
        List<HttpResponse<String>> answers = withinOneSecond(gateway);
        HttpResponse<String> admitted = answers.stream()
                .filter(answer -> answer.statusCode() == 200)
                .findFirst()
                .orElseThrow();
        assertThat(GatewayContract.fields(admitted).names())
                .as("the fields name the route's tightest limit, counted by the route's key (userKey)")
                .containsExactly("per-client-1s-route");
    }

    @Test
    void theReadmesWebMvcRouteInItsShortcutFormAdmitsFivePerSecond() throws Exception {
        ConfigurableApplicationContext gateway = start(MvcGateway.class, WebApplicationType.SERVLET, ONLY_MVC);
        withinOneSecond(gateway);
    }

    /**
     * Eight calls of one client at once: 5 admitted by the upstream, 3 answered 429; run again, once the window has
     * passed and as another client, when the burst did not fit in one second on Redis's clock (a slow machine).
     */
    private List<HttpResponse<String>> withinOneSecond(ConfigurableApplicationContext gateway) throws Exception {
        int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
        RedissonClient redisson = gateway.getBean(RedissonClient.class);
        for (int attempt = 1; ; attempt++) {
            String client = "readme-" + UUID.randomUUID();
            int servedBefore = upstream.served();
            long started = RedisCommands.timeMs(redisson);
            List<HttpResponse<String>> answers = Upstream.atOnce(new int[] {port}, 8, "/api/items", client);
            long took = RedisCommands.timeMs(redisson) - started;
            if (took >= 900 && attempt < 5) {
                RedisCommands.awaitTimeMs(redisson, RedisCommands.timeMs(redisson) + 1_100);
                continue;
            }
            assertThat(took).as("the burst within one second").isLessThan(1_000);
            assertThat(answers.stream().map(HttpResponse::statusCode))
                    .as("answers")
                    .containsOnly(200, 429)
                    .filteredOn(status -> status == 200)
                    .hasSize(5);
            assertThat(upstream.served() - servedBefore)
                    .as("calls the upstream saw")
                    .isEqualTo(5);
            return answers;
        }
    }
}
