package io.github.ratelimit.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * What a {@link RateLimiter} implements when its refused calls that will wait can hold a slot (an SPI for stores;
 * applications call {@link RateLimiter#tryAcquire(List, Duration)}, whose waiting asks through it), so that a caller told to
 * wait is counted at its slot at once and admitted when the slot comes, without deciding again; a caller stalled past
 * its slot can no longer push the next one later. A limiter that cannot hold a call's slot (its algorithms, its keys)
 * decides it as {@code tryAcquire} does, and the caller asks again when advised.
 */
public interface SlotHolder {

    /**
     * Decides the call; refused now, it holds the slot its advice names when every refusing limit's falls within
     * {@code within}, and is then admitted with {@link Decision#startsIn} the time to that slot.
     */
    Held hold(List<LimitRequest> requests, Duration within);

    /** The same without blocking. */
    CompletionStage<Held> holdAsync(List<LimitRequest> requests, Duration within);

    /** A decision, and the slot it holds if it holds one. */
    interface Held {

        Decision decision();

        /**
         * Whether the slot still stands when it comes: not once an operator reset or credited one of its limits (the
         * slot may be gone with the counts), when the caller decides again.
         */
        boolean stands();

        /** Gives the slot back: its caller gave up before its time. Sent, not waited for; nothing when none is held. */
        void giveUp();

        /** A decision that holds no slot. */
        static Held none(Decision decision) {
            return of(decision, () -> true, () -> {});
        }

        /** A decision holding a slot, told whether it stands and how to give it back. */
        static Held of(Decision decision, BooleanSupplier stands, Runnable giveUp) {
            return new Held() {
                @Override
                public Decision decision() {
                    return decision;
                }

                @Override
                public boolean stands() {
                    return stands.getAsBoolean();
                }

                @Override
                public void giveUp() {
                    giveUp.run();
                }
            };
        }
    }
}
