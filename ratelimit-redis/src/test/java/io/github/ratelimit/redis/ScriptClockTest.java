package io.github.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Since Redis 7.2, and on Valkey, time stands still inside a script: every {@code TIME} of one script returns the same
 * instant (redis#10300), where Redis 6.2 and 7.0 return the clock as it moves. Every script here reads the clock once
 * and computes from that one reading, so it decides alike on both: this test fails a script, as written or as the
 * limiter assembles it, that reads it twice.
 */
class ScriptClockTest {

    private static final Pattern TIME = Pattern.compile("redis\\.call\\(\\s*'TIME'\\s*\\)");

    @Test
    void everyScriptReadsRedisTimeAtMostOnce() throws IOException {
        List<Path> scripts;
        try (Stream<Path> written = Files.walk(Path.of("src/main/resources"));
                Stream<Path> assembled = Files.list(Path.of("scripts"))) {
            scripts = Stream.concat(written, assembled)
                    .filter(path -> path.toString().endsWith(".lua"))
                    .toList();
        }
        assertThat(scripts).hasSizeGreaterThan(20);
        for (Path script : scripts) {
            Matcher reads = TIME.matcher(Files.readString(script));
            int count = 0;
            while (reads.find()) {
                count++;
            }
            assertThat(count).as("reads of TIME in %s", script).isLessThanOrEqualTo(1);
        }
    }
}
