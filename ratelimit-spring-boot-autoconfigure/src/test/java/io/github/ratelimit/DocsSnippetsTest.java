package io.github.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration;
import io.github.ratelimit.autoconfigure.client.RateLimitClientAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.autoconfigure.servlet.RateLimitWebAutoConfiguration;
import io.github.ratelimit.fixtures.SharedRedis;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.io.ByteArrayResource;

/**
 * Every snippet of README.md and docs/*.md is held to the build: each block of Java or Kotlin is the code of a source
 * file the build compiles (its code, in order, white space aside; its imports among the file's; a body written
 * {@code { ... }} stands for the body the source has); each YAML block starts an
 * application with the starter's auto-configuration on a real Redis (properties are bound strictly, so a misspelt
 * key fails the start); each Maven dependency names an artifact this build makes or uses, at this build's version.
 * Blocks that other tests run as printed are named where they are skipped: the gateway routes
 * ({@code GatewayDocsSnippetTest}) and the blocks of a module's own settings (see {@code ownedByAModule}). Shell blocks are the tours, whose answers the sample contracts assert.
 */
class DocsSnippetsTest {

    private static final Path ROOT = root();

    record Block(String file, int line, String language, String text) {
        @Override
        public String toString() {
            return file + ":" + line + " (" + language + ")";
        }
    }

    /** README.md and every page of docs/. */
    static List<Path> docs() {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    private static final Pattern FENCE = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```", Pattern.DOTALL);

    static List<Block> blocks() {
        List<Block> blocks = new ArrayList<>();
        for (Path doc : docs()) {
            String text = read(doc);
            Matcher m = FENCE.matcher(text);
            while (m.find()) {
                int line = (int) text.substring(0, m.start())
                                .chars()
                                .filter(c -> c == '\n')
                                .count()
                        + 1;
                blocks.add(new Block(ROOT.relativize(doc).toString(), line, m.group(1), m.group(2)));
            }
        }
        return blocks;
    }

    /**
     * Every relative link of README.md and docs/*.md leads to a file of the repository and, with a {@code #fragment}, to
     * a heading of that page (as GitHub names a heading's anchor), so that moving a section cannot leave a link behind.
     */
    @TestFactory
    Stream<DynamicTest> eachLinkLeadsToAFileAndAHeadingThatExist() {
        Pattern link = Pattern.compile("\\]\\(([^)\\s]+)\\)");
        List<DynamicTest> tests = new ArrayList<>();
        for (Path doc : docs()) {
            Matcher m = link.matcher(FENCE.matcher(read(doc)).replaceAll(""));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path to = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                String name = ROOT.relativize(doc) + " -> " + target;
                tests.add(DynamicTest.dynamicTest(name, () -> {
                    assertThat(to).as("the file %s links to", name).exists();
                    if (hash >= 0) {
                        assertThat(anchors(read(to)))
                                .as("the headings of %s", to.getFileName())
                                .contains(target.substring(hash + 1));
                    }
                }));
            }
        }
        return tests.stream();
    }

    /** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
    static List<String> anchors(String page) {
        List<String> anchors = new ArrayList<>();
        Matcher heading =
                Pattern.compile("(?m)^#{1,6} (.+)$").matcher(FENCE.matcher(page).replaceAll(""));
        while (heading.find()) {
            String anchor = heading.group(1)
                    .trim()
                    .toLowerCase(java.util.Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            String unique = anchor;
            for (int n = 1; anchors.contains(unique); n++) {
                unique = anchor + "-" + n;
            }
            anchors.add(unique);
        }
        return anchors;
    }

    @TestFactory
    Stream<DynamicTest> eachJavaOrKotlinSnippetIsTheCodeOfACompiledSource() {
        Map<Path, List<String>> sources = sources();
        return blocks().stream()
                .filter(b -> b.language().equals("java") || b.language().equals("kotlin"))
                .map(block -> DynamicTest.dynamicTest(block.toString(), () -> {
                    List<String> snippet = normalized(block.text());
                    List<Path> found = sources.entrySet().stream()
                            .filter(source -> holds(source.getValue(), snippet))
                            .map(Map.Entry::getKey)
                            .toList();
                    assertThat(found)
                            .as("a compiled source holding %s:%n%s", block, block.text())
                            .isNotEmpty();
                }));
    }

    /**
     * A block of a module's own settings, which only that module binds: its tests run it as printed (docs/grpc.md's in
     * {@code GrpcLimitsTest.theRuleOfTheDocsLimitsItsMethod}, docs/graphql.md's in {@code
     * GraphQlSettingsTest.theYamlOfTheDocsStartsAnApplicationAsPrinted}); here, without the module, it would fail the
     * start as a setting nothing takes.
     */
    private static boolean ownedByAModule(Block block) {
        return Pattern.compile("(?m)^  (grpc|graphql|gateway):")
                .matcher(block.text())
                .find();
    }

    @TestFactory
    Stream<DynamicTest> eachYamlSnippetStartsAnApplication() {
        return blocks().stream()
                .filter(b -> b.language().equals("yaml"))
                .filter(b -> !b.text().contains("spring.cloud.gateway")) // GatewayDocsSnippetTest runs those
                .filter(b -> !ownedByAModule(b))
                .map(block -> DynamicTest.dynamicTest(block.toString(), () -> {
                    YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
                    yaml.setResources(new ByteArrayResource(block.text().getBytes()));
                    Properties properties = yaml.getObject();
                    assertThat(properties).as("properties of %s", block).isNotEmpty();
                    List<String> values = new ArrayList<>();
                    properties.forEach((key, value) -> values.add(key + "=" + value));
                    values.add("INTERNAL_KEY=an-internal-key"); // the placeholder the exemption snippet names
                    values.add("spring.data.redis.url=" + SharedRedis.get().url()); // after the snippet's own
                    values.add("ratelimit.key-prefix=docs-" + UUID.randomUUID() + ":");
                    new WebApplicationContextRunner()
                            .withConfiguration(AutoConfigurations.of(
                                    RateLimitRedissonAutoConfiguration.class,
                                    RateLimitRedisAutoConfiguration.class,
                                    RateLimitAutoConfiguration.class,
                                    RateLimitAopAutoConfiguration.class,
                                    RateLimitWebAutoConfiguration.class,
                                    RateLimitClientAutoConfiguration.class))
                            .withPropertyValues(values.toArray(String[]::new))
                            .run(context -> assertThat(context)
                                    .as("an application with %s", block)
                                    .hasNotFailed());
                }));
    }

    @TestFactory
    Stream<DynamicTest> eachMavenDependencyIsOfThisBuild() {
        String poms = poms();
        String version = version();
        Pattern dependency = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);
        return blocks().stream().filter(b -> b.language().equals("xml")).flatMap(block -> {
            List<DynamicTest> tests = new ArrayList<>();
            // a program without Spring Boot has no BOM but this build's, which manages this build's modules only
            boolean withoutBoot = block.text().contains("<artifactId>ratelimit-redis</artifactId>")
                    && !block.text().contains("org.springframework.boot");
            Matcher m = dependency.matcher(block.text());
            while (m.find()) {
                String named = m.group(1);
                String group = element(named, "groupId");
                String artifact = element(named, "artifactId");
                String given = element(named, "version");
                tests.add(DynamicTest.dynamicTest(block + " " + group + ":" + artifact, () -> {
                    assertThat(poms)
                            .as("a pom of this build using or making %s:%s", group, artifact)
                            .containsPattern("(?s)<groupId>" + Pattern.quote(group) + "</groupId>\\s*<artifactId>"
                                    + Pattern.quote(artifact) + "</artifactId>");
                    if (group.startsWith("io.github.ratelimit")) {
                        if (given != null && !given.startsWith("${")) {
                            assertThat(given).as("the version of %s", artifact).isEqualTo(version);
                        }
                    } else if (withoutBoot) {
                        // so it names any other's version, the one this build uses, to build as printed
                        assertThat(given)
                                .as("the version of %s, which the BOM does not manage", artifact)
                                .isEqualTo(versionOnClassPath(artifact));
                    }
                }));
            }
            return tests.stream();
        });
    }

    /**
     * Whether a source holds a snippet: its package and import lines are among the source's (Java orders imports as it
     * likes), and its other lines, with all white space taken out (so that where the formatter breaks a line does not
     * matter), are a stretch of the source's, where a body written {@code { ... }} at the end stands for the body the
     * source has.
     */
    static boolean holds(List<String> source, List<String> snippet) {
        StringBuilder code = new StringBuilder();
        for (String line : snippet) {
            if (line.startsWith("import ") || line.startsWith("package ")) {
                if (!source.contains(line)) {
                    return false;
                }
            } else {
                code.append(line.replaceAll("\\s", ""));
            }
        }
        String wanted = code.toString();
        if (wanted.endsWith("{...}")) {
            wanted = wanted.substring(0, wanted.length() - "...}".length());
        }
        StringBuilder all = new StringBuilder();
        for (String line : source) {
            if (!line.startsWith("import ") && !line.startsWith("package ")) {
                all.append(line.replaceAll("\\s", ""));
            }
        }
        return all.indexOf(wanted) >= 0;
    }

    /** The version of a jar on this test's class path, from its file name ({@code <artifact>-<version>.jar}). */
    private static String versionOnClassPath(String artifact) {
        Pattern jar = Pattern.compile(Pattern.quote(artifact) + "-(\\d[^/\\\\]*)\\.jar$");
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Matcher m = jar.matcher(entry);
            if (m.find()) {
                return m.group(1);
            }
        }
        throw new AssertionError(artifact + " is not on the class path of this test: name a version it can check");
    }

    private static String element(String xml, String name) {
        Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(xml);
        return m.find() ? m.group(1).strip() : null;
    }

    /** Lines without their indentation and runs of spaces, blank lines left out. */
    static List<String> normalized(String code) {
        return code.lines()
                .map(line -> line.strip().replaceAll("\\s+", " "))
                .filter(line -> !line.isEmpty())
                .toList();
    }

    private static Map<Path, List<String>> sources() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p ->
                            !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .filter(p -> p.toString().contains("/src/"))
                    .filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".kt"))
                    .collect(java.util.stream.Collectors.toMap(p -> p, p -> normalized(read(p))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String poms() {
        try (Stream<Path> files = Files.walk(ROOT, 2)) {
            StringBuilder all = new StringBuilder();
            files.filter(p -> p.getFileName().toString().equals("pom.xml"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .forEach(p -> all.append(read(p)));
            return all.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String version() {
        String pom = read(ROOT.resolve("pom.xml"));
        int parentEnd = pom.indexOf("</parent>");
        return element(pom.substring(parentEnd < 0 ? 0 : parentEnd), "version");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs"))) {
                return dir;
            }
        }
        throw new AssertionError("README.md not found above " + Path.of("").toAbsolutePath());
    }
}
