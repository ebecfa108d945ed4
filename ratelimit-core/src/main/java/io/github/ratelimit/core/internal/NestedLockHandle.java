package io.github.ratelimit.core.internal;

import io.github.ratelimit.core.locks.LockManager.LockHandle;
import io.github.ratelimit.core.locks.LockManager.LossReason;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A re-entrant acquisition's handle: the outer lock seen again by the thread that holds it. Its release only ends
 * the nesting (once); the outer handle's release frees the lock.
 */
public final class NestedLockHandle implements LockHandle {

    private final LockHandle outer;
    private final Runnable ended;
    private boolean done;

    /**
     * @param outer the lock the thread holds
     * @param ended called once when this nesting is released
     */
    public NestedLockHandle(LockHandle outer, Runnable ended) {
        this.outer = outer;
        this.ended = ended;
    }

    @Override
    public String key() {
        return outer.key();
    }

    @Override
    public long fencingToken() {
        return outer.fencingToken();
    }

    @Override
    public boolean isHeld() {
        return outer.isHeld();
    }

    @Override
    public void whenLost(Consumer<LossReason> callback) {
        outer.whenLost(callback);
    }

    @Override
    public boolean extend(Duration atMost) {
        return outer.extend(atMost);
    }

    @Override
    public CompletionStage<Boolean> extendAsync(Duration atMost) {
        return outer.extendAsync(atMost);
    }

    @Override
    public boolean extend(Duration atMost, Duration atLeast) {
        return outer.extend(atMost, atLeast);
    }

    @Override
    public CompletionStage<Boolean> extendAsync(Duration atMost, Duration atLeast) {
        return outer.extendAsync(atMost, atLeast);
    }

    @Override
    public boolean release() {
        if (done) {
            return false;
        }
        done = true;
        ended.run();
        return outer.isHeld();
    }
}
