package io.github.ratelimit.core.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What a failed future failed with, for every layer that reads one. */
public final class Futures {

    private Futures() {}

    /** The failure beneath the wrappers a future adds ({@code CompletionException}, {@code ExecutionException}). */
    public static Throwable cause(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
