package io.github.ratelimit.test.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.embedded.RedisServer;
import redis.embedded.core.ExecutableProvider;

class ServerBinaryTest {

    @Test
    void noBinaryNamedMeansTheEmbeddedOne() {
        assertThat(ServerBinary.named(null, null)).isNull();
        assertThat(ServerBinary.named(" ", "")).isNull();
    }

    @Test
    void theNamedBinaryStartsTheServer(@TempDir Path dir) throws Exception {
        // a binary of our own that says it ran, then runs the embedded server with what it was given
        File embedded = ExecutableProvider.newJarResourceProvider().get();
        Path ran = dir.resolve("ran");
        Path binary = dir.resolve("my-redis-server");
        Files.writeString(binary, "#!/bin/sh\ntouch '" + ran + "'\nexec '" + embedded.getAbsolutePath() + "' \"$@\"\n");
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwx------"));

        File named = ServerBinary.named(null, binary.toString());
        assertThat(named).isEqualTo(binary.toFile());
        int port = RedisProcess.freePort();
        RedisServer server = ServerBinary.newServer(named)
                .port(port)
                .setting("bind 127.0.0.1")
                .setting("save \"\"")
                .build();
        server.start();
        try {
            assertThat(ran).exists();
            assertThat(RawRedis.pid(port)).isPositive();
        } finally {
            server.stop();
        }
    }

    @Test
    void thePropertyWinsOverTheVariable(@TempDir Path dir) throws Exception {
        Path binary = Files.createFile(dir.resolve("valkey-server"));
        Files.setPosixFilePermissions(binary, PosixFilePermissions.fromString("rwx------"));
        assertThat(ServerBinary.named(binary.toString(), "/nowhere/redis-server"))
                .isEqualTo(binary.toFile());
    }

    @Test
    void aBinaryThatIsNotThereIsNamedWithTheSettingThatNamedIt(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> ServerBinary.named(null, "/nowhere/redis-server"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("RATELIMIT_TEST_REDIS_SERVER names '/nowhere/redis-server', which is not there; name a"
                        + " redis-server or valkey-server binary, or leave it unset for the embedded Redis 6.2");
        Path notExecutable = Files.createFile(dir.resolve("redis.conf"));
        assertThatThrownBy(() -> ServerBinary.named(notExecutable.toString(), null))
                .hasMessageStartingWith(
                        "ratelimit.test.redis-server names '" + notExecutable + "', which is not an executable file");
    }
}
