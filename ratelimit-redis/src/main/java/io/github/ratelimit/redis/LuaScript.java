package io.github.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script read from the classpath once, with the SHA-1 digest Redis knows it by; {@code oneCallEach}: a decision
 * script that decides one call per script call, which is never sent a batch of several (see DecisionScripts).
 */
record LuaScript(String name, String source, String sha1, boolean oneCallEach) {

    /**
     * The script {@code name}.lua, preceded by the shared parts it uses (a script cannot include another in Redis, so
     * what two scripts share is prepended to each).
     */
    static LuaScript load(String name, String... shared) {
        StringBuilder source = new StringBuilder();
        for (String part : shared) {
            source.append(read(part + ".lua")).append('\n');
        }
        source.append(read(name + ".lua"));
        return new LuaScript(name, source.toString(), sha1(source.toString()), false);
    }

    /** A Lua file next to this class ({@code resource}: its path from here, {@code .lua} included). */
    static String read(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Lua script not found on the classpath: " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Lua script " + resource, e);
        }
    }

    static String sha1(String source) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(digest.digest(source.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }
}
