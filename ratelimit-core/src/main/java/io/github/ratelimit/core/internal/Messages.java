package io.github.ratelimit.core.internal;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The wording of every rule the starter checks in more than one place, so that an annotation attribute, a property and
 * a programmatic call that break the same rule are told the same thing. Each method returns a message; the caller
 * decides what to throw or report it as. {@code what} names what was wrong (an attribute, a property, a parameter); a
 * null {@code what} leaves the subject out, for reports that name the property themselves (Boot's bind errors).
 */
public final class Messages {

    /**
     * What a limit name, a plan name, a token purpose, a lock name or a concurrency limit name may be: 1 to 100 letters,
     * digits or {@code ._:/-}, characters that need no escaping in Redis keys or HTTP headers.
     */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:/-]{1,100}");

    /** What {@code ratelimit.key-prefix} may be: at most 64 of the characters of a name. */
    public static final Pattern KEY_PREFIX = Pattern.compile("[A-Za-z0-9._:/-]{0,64}");

    private static final int MAX_QUOTED = 120;

    private Messages() {}

    /** Whether a text is a valid {@linkplain #NAME name}. */
    public static boolean isName(String text) {
        return text != null && NAME.matcher(text).matches();
    }

    /** {@code <what> must be 1 to 100 letters, digits or '._:/-', but was '<value>'}. */
    public static String badName(@Nullable String what, String value) {
        return subject(what) + "must be 1 to 100 letters, digits or '._:/-', but was '" + printable(value) + "'";
    }

    /** The message for a key prefix that is not at most 64 of the characters of a name. */
    public static String badKeyPrefix(@Nullable String what, String value) {
        return subject(what) + "must be at most 64 of A-Z a-z 0-9 . _ : / -, but was '" + printable(value) + "'";
    }

    /** {@code <what> must not be null or empty}. */
    public static String empty(String what) {
        return subject(what) + "must not be null or empty";
    }

    /** {@code <what> must be at least <min>, but was <actual>}. */
    public static String atLeast(@Nullable String what, Object min, Object actual) {
        return subject(what) + "must be at least " + min + ", but was " + actual;
    }

    /** {@code <what> must not be negative, but was <actual>}. */
    public static String negative(@Nullable String what, Object actual) {
        return subject(what) + "must not be negative, but was " + actual;
    }

    /** {@code <what> must be between <min> and <max>, but was <actual>}. */
    public static String between(@Nullable String what, Object min, Object max, Object actual) {
        return subject(what) + "must be between " + min + " and " + max + ", but was " + actual;
    }

    /** A lock's or a call's bounded lifetime shorter than the lease it renews. */
    public static String lifetimeBelowLease(long leaseMs, long maxLifetimeMs) {
        return "maxLifetimeMs must be at least leaseMs " + leaseMs + ", but was " + maxLifetimeMs;
    }

    /** The text with control characters escaped and cut to a readable length: user input made safe to quote. */
    public static String printable(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_QUOTED) + 8);
        for (int i = 0; i < text.length() && out.length() < MAX_QUOTED; i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (out.length() >= MAX_QUOTED && text.length() > MAX_QUOTED) {
            out.append("... (").append(text.length()).append(" chars)");
        }
        return out.toString();
    }

    private static String subject(@Nullable String what) {
        return what == null ? "" : what + " ";
    }
}
