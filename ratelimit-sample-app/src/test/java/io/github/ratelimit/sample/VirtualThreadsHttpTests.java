package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.test.EmbeddedRedis;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The servlet sample's whole HTTP contract with requests on virtual threads ({@code spring.threads.virtual.enabled}),
 * where the JDK has them (21 or newer; the build's baseline, 17, skips it): the same limits, exact, the same answers.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"sample.embedded-redis=false", "spring.threads.virtual.enabled=true"})
@EmbeddedRedis
class VirtualThreadsHttpTests extends SampleHttpContract {

    @Autowired
    WebServerApplicationContext context;

    @Test
    void requestsRunOnVirtualThreads() {
        Executor executor = ((TomcatWebServer) context.getWebServer())
                .getTomcat()
                .getConnector()
                .getProtocolHandler()
                .getExecutor();
        assertThat(executor.getClass().getSimpleName()).isEqualTo("VirtualThreadExecutor");
    }
}
