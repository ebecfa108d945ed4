package io.github.ratelimit.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Clients blocked by an operator on every instance: a block names a kind of key and a value ({@code ip} and an
 * address, {@code principal} and a name, {@code header:x-api-key} and a key, or an application's own kind) and lasts a
 * given time. Every rate-limited call of a blocked client is refused, whatever its limits; checking a call must not
 * wait for the store.
 */
public interface ClientBlocks {

    /** How long this client stays blocked, or null when it is not; answered from memory. */
    @Nullable
    Duration blockedFor(ClientIdentifier client);

    /** Whether no block is known (the common case, checked first on every call). */
    boolean isEmpty();

    /** The store's clock now, for the time of a refusal. */
    Instant now();

    /** Blocks a client for a while on every instance; a block already in force is replaced. */
    void block(ClientIdentifier client, Duration duration);

    /** Lifts a client's block on every instance; whether there was one. */
    boolean lift(ClientIdentifier client);

    /** Every block in force, named {@code <kind> <value>}, and the time it has left. */
    Map<String, Duration> list();
}
