package io.github.ratelimit.sample.plain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reference.md's "Without Spring in full" is this module, as printed: its Java is {@code Limits.java} exactly
 * (so it compiles, with every import), and each Maven dependency it names is one of this module's, with its scope.
 */
class DocsSnippetTest {

    private static final Path MODULE = Path.of("").toAbsolutePath();

    private static String section() throws IOException {
        String reference = Files.readString(MODULE.resolveSibling("docs").resolve("reference.md"));
        int start = reference.indexOf("## Without Spring in full");
        assertThat(start).as("the section").isNotNegative();
        int end = reference.indexOf("\n## ", start + 3);
        return reference.substring(start, end < 0 ? reference.length() : end);
    }

    private static List<String> blocks(String text, String language) {
        List<String> blocks = new ArrayList<>();
        Matcher m =
                Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    @Test
    void theJavaOfTheSectionIsThisModulesProgram() throws IOException {
        List<String> java = blocks(section(), "java");
        assertThat(java).hasSize(1);
        String program = Files.readString(MODULE.resolve("src/main/java/io/github/ratelimit/sample/plain/Limits.java"));
        assertThat(java.get(0).strip()).isEqualTo(program.strip());
    }

    @Test
    void theLogbackConfigurationOfTheSectionIsThisModules() throws IOException {
        String printed = blocks(section(), "xml").get(1);
        String file = Files.readString(MODULE.resolve("src/main/resources/logback.xml"));
        assertThat(printed.strip()).isEqualTo(file.strip());
    }

    @Test
    void eachDependencyOfTheSectionIsThisModules() throws IOException {
        List<String> xml = blocks(section(), "xml");
        assertThat(xml).as("the dependencies, then logback.xml").hasSize(2);
        String pom = Files.readString(MODULE.resolve("pom.xml"))
                .replaceAll("<!--.*?-->", "")
                .replaceAll("\\s+", "");
        Matcher dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL)
                .matcher(xml.get(0));
        int named = 0;
        while (dependency.find()) {
            named++;
            assertThat(pom).contains("<dependency>" + dependency.group(1).replaceAll("\\s+", "") + "</dependency>");
        }
        assertThat(named).isEqualTo(2);
    }
}
