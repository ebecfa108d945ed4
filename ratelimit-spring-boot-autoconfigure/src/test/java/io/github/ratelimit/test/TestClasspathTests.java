package io.github.ratelimit.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code ratelimit-test} puts on a user's test classpath. */
class TestClasspathTests {

    /**
     * Jedis (which embedded-redis brings for its cluster builders only) brought {@code org.json}, whose
     * {@code JSONObject} Boot's test support then reported as a duplicate of {@code android-json}'s in every test run.
     */
    @Test
    void bringsNoSecondJsonObject() throws Exception {
        List<URL> copies = Collections.list(getClass().getClassLoader().getResources("org/json/JSONObject.class"));
        assertThat(copies).hasSizeLessThanOrEqualTo(1);
        assertThat(copies).noneMatch(url -> url.toString().contains("/org/json/json/"));
    }
}
