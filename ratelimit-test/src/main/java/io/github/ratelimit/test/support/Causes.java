package io.github.ratelimit.test.support;

/** The messages of a failure and all its causes, one per line, for assertions on a failed start. */
public final class Causes {

    private Causes() {}

    public static String messages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
