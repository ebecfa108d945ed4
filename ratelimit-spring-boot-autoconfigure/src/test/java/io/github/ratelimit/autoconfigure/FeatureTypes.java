package io.github.ratelimit.autoconfigure;

/**
 * The package-private classes of the feature packages, by name: for tests that check which beans a context holds
 * without being in that package.
 */
public final class FeatureTypes {

    private FeatureTypes() {}

    /** @param name the class's name under {@code io.github.ratelimit.autoconfigure}, such as {@code servlet.RateLimitFilter} */
    public static Class<?> of(String name) {
        try {
            return Class.forName("io.github.ratelimit.autoconfigure." + name);
        } catch (ClassNotFoundException e) {
            throw new AssertionError("no class " + name + " in the auto-configuration", e);
        }
    }
}
