package io.github.ratelimit.core;

/** Makes user-supplied text safe to quote in a message. */
final class Names {

    private static final int MAX_QUOTED = 120;

    private Names() {}

    /** The text with control characters escaped and cut to a readable length. */
    static String printable(String text) {
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
}
