package io.github.ratelimit.local;

import io.github.ratelimit.core.LimitOverrides;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Operators' overrides of limits in this instance's memory ({@code ratelimit.store=memory}): they hold in this instance
 * only, and end with it, as everything it counts. Read on every decision without a lock; a change (an operator's,
 * rare) replaces the whole map at once.
 */
public final class LocalLimitOverrides implements LimitOverrides {

    /** The overrides in force, never changed in place: a change writes a new map. */
    private volatile Map<String, Change> overrides = Map.of();

    @Override
    public @Nullable Change get(String name) {
        Map<String, Change> current = overrides;
        return current.isEmpty() ? null : current.get(name);
    }

    @Override
    public synchronized void set(String name, Change override) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(override, "override");
        Map<String, Change> changed = new HashMap<>(overrides);
        changed.put(name, override);
        overrides = Map.copyOf(changed);
    }

    @Override
    public synchronized boolean remove(String name) {
        if (!overrides.containsKey(name)) {
            return false;
        }
        Map<String, Change> changed = new HashMap<>(overrides);
        changed.remove(name);
        overrides = Map.copyOf(changed);
        return true;
    }

    @Override
    public Map<String, Change> list() {
        return overrides;
    }
}
