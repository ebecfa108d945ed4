package io.github.ratelimit.local;

import io.github.ratelimit.core.ClientBlocks;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.internal.Messages;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/** An operator's blocks in this instance's memory ({@code ratelimit.store=memory}): one instance's, on its clock. */
public final class LocalClientBlocks implements ClientBlocks {

    /** {@code <kind>\n<value>} and when the block ends (JVM nanos). */
    private final Map<String, Long> blocks = new ConcurrentHashMap<>();

    @Override
    public @Nullable Duration blockedFor(ClientIdentifier client) {
        Long ends = blocks.get(name(client));
        long now = System.nanoTime();
        if (ends == null || now - ends >= 0) {
            return null;
        }
        return Duration.ofNanos(ends - now);
    }

    /** Whether no block is kept; ended ones are dropped when a block is set or the blocks are listed. */
    @Override
    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    @Override
    public Instant now() {
        return Instant.now();
    }

    @Override
    public void block(ClientIdentifier client, Duration duration) {
        if (duration.toMillis() < 1) {
            throw new IllegalArgumentException(Messages.atLeast("block duration", "1 ms", duration));
        }
        long now = System.nanoTime();
        blocks.values().removeIf(ends -> now - ends >= 0);
        blocks.put(name(client), now + duration.toNanos());
    }

    @Override
    public boolean lift(ClientIdentifier client) {
        Long ends = blocks.remove(name(client));
        return ends != null && System.nanoTime() - ends < 0;
    }

    @Override
    public Map<String, Duration> list() {
        Map<String, Duration> all = new TreeMap<>();
        long now = System.nanoTime();
        blocks.values().removeIf(ends -> now - ends >= 0);
        blocks.forEach((name, ends) -> {
            if (now - ends < 0) {
                all.put(name.replace('\n', ' '), Duration.ofNanos(ends - now));
            }
        });
        return all;
    }

    private static String name(ClientIdentifier client) {
        return (client.kind() == null ? "" : client.kind()) + '\n' + client.value();
    }
}
