package io.github.ratelimit.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import redis.embedded.RedisServer;

/**
 * Starts a real redis-server (shipped inside the embedded-redis jar) on a free port when no
 * {@code spring.data.redis.url} is set, and points the application at it. Set the URL to share one Redis
 * between several instances of the app.
 */
public class EmbeddedRedisInitializer implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisInitializer.class);

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableEnvironment environment = context.getEnvironment();
        if (environment.containsProperty("spring.data.redis.url")
                || !environment.getProperty("sample.embedded-redis", Boolean.class, true)) {
            return;
        }
        int port = freePort();
        RedisServer server;
        try {
            server = RedisServer.newRedisServer()
                    .port(port)
                    .setting("bind 127.0.0.1")
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the embedded Redis", e);
        }
        log.info("Started an embedded Redis on port {} (set spring.data.redis.url to use your own)", port);
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "embeddedRedis", Map.of("spring.data.redis.url", "redis://127.0.0.1:" + port)));
        context.addApplicationListener(event -> {
            if (event instanceof ContextClosedEvent closed && closed.getApplicationContext() == context) {
                stop(server);
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server)));
    }

    private static void stop(RedisServer server) {
        try {
            if (server.isActive()) {
                server.stop();
            }
        } catch (IOException e) {
            log.warn("Could not stop the embedded Redis", e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
