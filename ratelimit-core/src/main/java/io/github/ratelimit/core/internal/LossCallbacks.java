package io.github.ratelimit.core.internal;

import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The callbacks a lock's holder asked to be told of its loss with ({@code LockHandle.whenLost}): each told once, also
 * one added after the loss; what a callback throws is logged and the others are still told.
 */
public final class LossCallbacks {

    private static final Logger log = LoggerFactory.getLogger(LossCallbacks.class);

    private final String key;
    private final List<Consumer<LossReason>> callbacks = new CopyOnWriteArrayList<>();

    /** @param key the lock's key, for the log */
    public LossCallbacks(String key) {
        this.key = key;
    }

    /** Adds a callback, told at once if {@code loss} says the lock is lost already. */
    public void add(Consumer<LossReason> callback, Supplier<@Nullable LossReason> loss) {
        java.util.Objects.requireNonNull(callback, "callback");
        callbacks.add(callback);
        LossReason already = loss.get();
        if (already != null && callbacks.remove(callback)) {
            tell(callback, already); // lost before the callback was added: told here, once
        }
    }

    /** Tells every callback added so far, each once. */
    public void tellAll(LossReason reason) {
        for (Consumer<LossReason> callback : callbacks) {
            if (callbacks.remove(callback)) {
                tell(callback, reason);
            }
        }
    }

    private void tell(Consumer<LossReason> callback, LossReason reason) {
        try {
            callback.accept(reason);
        } catch (RuntimeException e) {
            log.warn("A callback told of the loss of lock {} failed", LockManager.quotedKey(key), e);
        }
    }
}
