package io.github.ratelimit.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * What a public release needs, checked on every build: the metadata a public repository requires in the POMs that
 * are published (the parent's, which the modules inherit, and the BOM's, which has no parent), a name and a
 * description per module, an Automatic-Module-Name per jar, the BOM listing every published module at the project's
 * version, and the license file.
 */
class PublishedPomsTest {

    private static final Path ROOT = Path.of("..");
    private static final List<String> PUBLISHED = List.of(
            "ratelimit-annotations",
            "ratelimit-core",
            "ratelimit-redis",
            "ratelimit-spring",
            "ratelimit-spring-boot-autoconfigure",
            "ratelimit-spring-boot-starter",
            "ratelimit-spring-cloud-gateway",
            "ratelimit-grpc",
            "ratelimit-graphql",
            "ratelimit-kafka",
            "ratelimit-embedded-redis",
            "ratelimit-test-kit",
            "ratelimit-test");

    @Test
    void theParentAndTheBomCarryWhatAPublicReleaseNeeds() throws Exception {
        for (Path pom : List.of(ROOT.resolve("pom.xml"), ROOT.resolve("ratelimit-bom/pom.xml"))) {
            Element project = read(pom);
            assertThat(text(project, "name")).as("%s name", pom).isNotBlank();
            assertThat(text(project, "description")).as("%s description", pom).isNotBlank();
            assertThat(text(project, "url")).as("%s url", pom).startsWith("https://github.com/ratelimit/");
            Element license = child(child(project, "licenses"), "license");
            assertThat(text(license, "name")).as("%s license", pom).isEqualTo("Apache-2.0");
            assertThat(text(license, "url")).startsWith("https://www.apache.org/licenses/LICENSE-2.0");
            Element scm = child(project, "scm");
            assertThat(text(scm, "url")).isEqualTo(text(project, "url"));
            assertThat(text(scm, "connection")).startsWith("scm:git:" + text(project, "url"));
            Element developer = child(child(project, "developers"), "developer");
            assertThat(text(developer, "name")).as("a team, not a person").contains("maintainers");
        }
        assertThat(text(read(ROOT.resolve("ratelimit-bom/pom.xml")), "version"))
                .isEqualTo(text(read(ROOT.resolve("pom.xml")), "version"));
        assertThat(Files.readString(ROOT.resolve("LICENSE")))
                .contains("Apache License")
                .contains("Version 2.0");
    }

    @Test
    void everyPublishedModuleIsNamedDescribedHasAModuleNameAndIsInTheBom() throws Exception {
        List<String> managed = new ArrayList<>();
        Element bom = read(ROOT.resolve("ratelimit-bom/pom.xml"));
        for (Element dependency : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            assertThat(text(dependency, "version")).isEqualTo("${project.version}");
            managed.add(text(dependency, "artifactId"));
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(PUBLISHED);
        for (String module : PUBLISHED) {
            Path pom = ROOT.resolve(module).resolve("pom.xml");
            Element project = read(pom);
            assertThat(text(project, "name")).as("%s name", module).isEqualTo(module);
            assertThat(text(project, "description"))
                    .as("%s description", module)
                    .isNotBlank();
            assertThat(Files.readString(pom))
                    .as("%s Automatic-Module-Name", module)
                    .containsPattern(
                            "<Automatic-Module-Name>io\\.github\\.ratelimit(\\.[a-z]+)+</Automatic-Module-Name>");
        }
    }

    private static Element read(Path pom) throws Exception {
        Document document =
                DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        return document.getDocumentElement();
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        assertThat(found).as("<%s> in <%s>", name, parent.getTagName()).isNotEmpty();
        return found.get(0);
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }

    private static String text(Element parent, String name) {
        return child(parent, name).getTextContent().trim();
    }
}
