package io.github.ratelimit.spring.definition;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.KeyResolver;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The kinds of key that annotations and rules may name: the built-in {@code ip}, {@code principal}, {@code client}
 * and {@code header:<Name>}, and the application's {@link KeyResolver} beans by their names. The one owner of what a
 * key kind means, for {@code @RateLimited}, {@code @ConcurrencyLimited}, {@code @Locked} and path rules alike.
 */
public final class KeyResolvers {

    /** The built-in kinds only. */
    public static final KeyResolvers BUILT_IN = new KeyResolvers(Map.of());

    private static final Pattern BARE_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]{0,99}");
    private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}");
    private static final Set<String> BUILT_IN_NAMES = Set.of("ip", "principal", "client");

    private final Map<String, KeyResolver> beans;

    /**
     * @param beans the application's resolvers by bean name; a bean may not take a built-in kind's name
     * @throws IllegalArgumentException for a bean named after a built-in kind, or with a name a key cannot spell
     */
    public KeyResolvers(Map<String, KeyResolver> beans) {
        for (String name : beans.keySet()) {
            if (BUILT_IN_NAMES.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("KeyResolver bean '" + name + "' takes the name of a built-in key"
                        + " kind " + new TreeSet<>(BUILT_IN_NAMES) + "; give the bean another name");
            }
        }
        this.beans = Map.copyOf(beans);
    }

    /**
     * Whether a key text names a kind of key rather than being an expression: a bare name ({@code ip},
     * {@code tenant}) or {@code header:<Name>}. Anything else in an annotation's key is SpEL.
     */
    public static boolean isKind(String text) {
        String trimmed = text.trim();
        return BARE_NAME.matcher(trimmed).matches() || trimmed.regionMatches(true, 0, "header:", 0, 7);
    }

    /**
     * The resolver of a kind.
     *
     * @throws IllegalArgumentException naming the kinds there are, when there is no such kind or the header name is
     *     not one
     */
    public KeyResolver resolver(String kind) {
        String normalized = ClientIdentifier.normalizeKind(kind);
        if (normalized.startsWith("header:")) {
            String header = kind.trim().substring(7).trim();
            if (!HEADER_NAME.matcher(header).matches()) {
                throw new IllegalArgumentException("names a header that is not a valid header name: '" + header + "'");
            }
            return caller -> caller.header(header);
        }
        switch (normalized.toLowerCase(Locale.ROOT)) {
            case "ip":
                return CallerContext::clientAddress;
            case "principal":
                return CallerContext::principalName;
            case "client":
                return caller -> ClientIdentifier.clientValue(caller.principalName(), caller.clientAddress());
            default:
                KeyResolver bean = beans.get(normalized);
                if (bean == null) {
                    throw new IllegalArgumentException("names no key kind: '" + kind + "' is neither one of "
                            + new TreeSet<>(BUILT_IN_NAMES) + ", header:<Name>, nor a KeyResolver bean "
                            + (beans.isEmpty() ? "(there are none)" : new TreeMap<>(beans).keySet()));
                }
                return bean;
        }
    }

    /** The kind as identifiers carry it: built-in kinds lower-cased, a header name lower-cased, a bean's name as is. */
    public static String kindName(String kind) {
        String normalized = ClientIdentifier.normalizeKind(kind);
        return BUILT_IN_NAMES.contains(normalized.toLowerCase(Locale.ROOT))
                ? normalized.toLowerCase(Locale.ROOT)
                : normalized;
    }
}
