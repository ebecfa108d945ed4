package io.github.ratelimit.test.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The configuration metadata the IDE reads ({@code META-INF/spring-configuration-metadata.json} of every module on
 * the class path, as Spring Boot's configuration processor writes it), for assertions on what a setting's help says.
 */
public final class SettingsMetadata {

    private SettingsMetadata() {}

    /**
     * The description of a property, its JSON escapes of {@code /} undone.
     *
     * @throws AssertionError when no module on the class path describes it
     */
    public static String description(String property) {
        String all = metadata();
        Matcher found = Pattern.compile("\"name\": \"" + Pattern.quote(property)
                        + "\",\\s*\"type\": \"[^\"]*\",\\s*\"description\": \"((?:[^\"\\\\]|\\\\.)*)\"")
                .matcher(all);
        if (!found.find()) {
            throw new AssertionError(property + " is described in no configuration metadata on the class path");
        }
        return found.group(1).replace("\\/", "/");
    }

    private static String metadata() {
        StringBuilder all = new StringBuilder();
        try {
            for (URL file : Collections.list(SettingsMetadata.class
                    .getClassLoader()
                    .getResources("META-INF/spring-configuration-metadata.json"))) {
                try (InputStream in = file.openStream()) {
                    all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                            .append('\n');
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all.toString();
    }
}
