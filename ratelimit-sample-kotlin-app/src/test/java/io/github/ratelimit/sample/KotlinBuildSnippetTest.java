package io.github.ratelimit.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/stacks.md's Kotlin build setup is this sample's build, as printed: each XML block is in its pom.xml. */
class KotlinBuildSnippetTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();

    @Test
    void theBuildSetupOfKotlinInFullIsTheSamplesBuild() throws IOException {
        String page = Files.readString(MODULE.resolveSibling("docs").resolve("stacks.md"));
        int start = page.indexOf("### Kotlin in full");
        assertThat(start).as("the section").isNotNegative();
        int end = page.indexOf("\n## ", start + 3);
        String section = page.substring(start, end);
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```xml\n(.*?)```", Pattern.DOTALL).matcher(section);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertThat(blocks).hasSize(2);
        String pom = squeeze(Files.readString(MODULE.resolve("pom.xml")));
        Matcher dependency =
                Pattern.compile("<dependency>.*?</dependency>", Pattern.DOTALL).matcher(blocks.get(0));
        int dependencies = 0;
        while (dependency.find()) {
            dependencies++;
            assertThat(pom).contains(squeeze(dependency.group()));
        }
        assertThat(dependencies).isEqualTo(4);
        assertThat(pom).contains(squeeze(blocks.get(1)));
        assertThat(blocks.get(1)).contains("<plugin>spring</plugin>");
    }

    private static String squeeze(String xml) {
        return xml.replaceAll("<!--.*?-->", "").replaceAll("\\s+", "");
    }
}
