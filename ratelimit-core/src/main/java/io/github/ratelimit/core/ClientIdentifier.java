package io.github.ratelimit.core;

import io.github.ratelimit.core.internal.Messages;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Who a limit counts: a kind (the key expression of an annotation such as {@code #userId}, or a rule's key kind
 * such as {@code ip}, {@code client}, {@code header:x-api-key}) and the value it had for one call. Every part of the
 * starter builds identifiers here, so the request path, locks and the operator endpoint always name the same
 * counter the same way: one {@link #canonical() canonical form} and one {@link #digest() digest}.
 *
 * <p>Kinds are normalised: surrounding blanks are dropped and a header name is lower-cased (header names are
 * case-insensitive), so {@code header:X-Api-Key} and {@code header:x-api-key} are one kind. Two kinds never share a
 * counter, even for equal values: a user id {@code 42} and an IP address {@code 42} are told apart. An identifier an
 * application names itself in a programmatic call has no kind ({@link #of(String)}).
 *
 * @param kind what produced the value, normalised; null for an identifier without a kind
 * @param value the value, not blank
 */
public record ClientIdentifier(@Nullable String kind, String value) {

    private static final char SEPARATOR = '\u0000';

    public ClientIdentifier {
        if (kind != null && (kind.isBlank() || kind.indexOf(SEPARATOR) >= 0)) {
            throw new IllegalArgumentException(
                    "identifier kind must not be blank or contain NUL, but was '" + Messages.printable(kind) + "'");
        }
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(
                    "identifier value" + (kind == null ? "" : " of " + kind) + " must not be blank");
        }
        if (kind == null && value.indexOf(SEPARATOR) >= 0) {
            // its canonical form could then be that of an identifier with a kind
            throw new IllegalArgumentException(
                    "an identifier without a kind must not contain NUL, but was '" + Messages.printable(value) + "'");
        }
        kind = kind == null ? null : normalizeKind(kind);
    }

    /** The identifier of a value under a kind, normalising the kind. */
    public static ClientIdentifier of(String kind, String value) {
        return new ClientIdentifier(kind, value);
    }

    /** An identifier the application names itself, without a kind (a user id given to the limiter directly). */
    public static ClientIdentifier of(String value) {
        return new ClientIdentifier(null, value);
    }

    /**
     * The value of the {@code client} kind (and of the {@code #client} key variable): {@code principal:<name>} for an
     * authenticated caller, else {@code ip:<address>}, or null when neither is known.
     */
    public static @Nullable String clientValue(@Nullable String principalName, @Nullable String address) {
        if (principalName != null) {
            return "principal:" + principalName;
        }
        return address != null ? "ip:" + address : null;
    }

    /** The normalised form of a kind: trimmed, and a header name lower-cased. */
    public static String normalizeKind(String kind) {
        String trimmed = kind.trim();
        if (trimmed.regionMatches(true, 0, "header:", 0, 7)) {
            return "header:" + trimmed.substring(7).trim().toLowerCase(Locale.ROOT);
        }
        return trimmed;
    }

    /** The same client, counted apart for each path (a per-path rule). */
    public ClientIdentifier perPath(String path) {
        return new ClientIdentifier(kind, value + SEPARATOR + path);
    }

    /**
     * The one string form, what the digest is taken of: kind, NUL, value; the value alone for an identifier without a
     * kind. Never parsed back: the parts are {@link #kind()} and {@link #value()}.
     */
    public String canonical() {
        return kind == null ? value : kind + SEPARATOR + value;
    }

    /** SHA-256 of the canonical form: what keys and partition keys are derived from, never the value itself. */
    public byte[] digest() {
        try {
            return MessageDigest.getInstance("SHA-256").digest(canonical().getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }

    @Override
    public String toString() {
        return kind == null ? value : kind + "=" + value;
    }
}
