package io.github.ratelimit.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * A Lua script read from the classpath once, with the SHA-1 digest Redis knows it by; {@code oneCallEach}: a decision
 * script that decides one call per script call, which is never sent a batch of several (see DecisionScripts).
 */
public record LuaScript(String name, String source, String sha1, boolean oneCallEach) {

    /** The scripts the health check keeps loaded (see {@link #keptLoaded}), in the order they were first made. */
    private static final Set<LuaScript> KEPT = new CopyOnWriteArraySet<>();

    /** The script {@code name}.lua beside {@code owner}, the class that runs it. */
    public static LuaScript load(Class<?> owner, String name) {
        String source = read(owner, name + ".lua");
        return new LuaScript(name, source, sha1(source), false);
    }

    /** A Lua file beside {@code owner} ({@code resource}: its path from there, {@code .lua} included). */
    public static String read(Class<?> owner, String resource) {
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(
                        "Lua script not found on the classpath beside " + owner.getPackageName() + ": " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Lua script " + resource, e);
        }
    }

    public static String sha1(String source) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }

    /**
     * This script, which the health check ({@code RedisConnector#healthCheck}) then finds loaded or loads again: the
     * scripts a capability sends by their SHA-1 outside a decision's shape, registered as their class is made.
     */
    public LuaScript keptLoaded() {
        KEPT.add(this);
        return this;
    }

    /** The scripts {@link #keptLoaded} registered so far. */
    public static List<LuaScript> kept() {
        return List.copyOf(KEPT);
    }
}
