package io.github.ratelimit.core;

import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Operators' overrides of limits by name, for every instance: a new quota and window, or shadow mode on or off, kept
 * until removed (across restarts); removing one returns to what the code or the configuration declares. Reading one
 * must not wait for the store.
 */
public interface LimitOverrides {

    /**
     * What an override changes; a null part keeps the declared one.
     *
     * @param limit the units per window, at least 1, or null
     * @param window the window, at least 1 ms, or null
     * @param shadow whether the limit only counts and reports, or null
     */
    record Change(@Nullable Long limit, @Nullable Duration window, @Nullable Boolean shadow) {

        public Change {
            if (limit != null && limit < 1) {
                throw new IllegalArgumentException(Messages.atLeast("limit", 1, limit));
            }
            if (window != null && window.toMillis() < 1) {
                throw new IllegalArgumentException(Messages.atLeast("window", "1 ms", window));
            }
            if (limit == null && window == null && shadow == null) {
                throw new IllegalArgumentException("an override changes the limit, the window or shadow mode");
            }
        }

        /** The limit as this override makes it. */
        public RateLimit applyTo(RateLimit declared) {
            if (limit == null && window == null) {
                return declared;
            }
            return declared.withQuota(
                    limit != null ? limit : declared.limit(),
                    window != null && declared.period() == null ? window : declared.window());
        }
    }

    /** The override of a limit name, or null; answered from memory. */
    @Nullable
    Change get(String name);

    /** Overrides a limit name on every instance, replacing an override in force. */
    void set(String name, Change override);

    /** Removes a name's override on every instance; whether there was one. */
    boolean remove(String name);

    /** Every override in force. */
    Map<String, Change> list();
}
