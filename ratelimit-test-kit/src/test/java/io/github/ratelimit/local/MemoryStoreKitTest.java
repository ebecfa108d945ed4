package io.github.ratelimit.local;

import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.locks.LockManager;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.test.kit.AdaptiveConcurrencyLimiterContract;
import io.github.ratelimit.test.kit.ConcurrencyLimiterContract;
import io.github.ratelimit.test.kit.LockManagerContract;
import io.github.ratelimit.test.kit.SingleUseTokensContract;
import org.junit.jupiter.api.Nested;

/**
 * The kit's contracts on the memory store ({@code ratelimit.store=memory}): the two instances of each contract are
 * one memory, as two callers of one application; for locks, two managers on that memory, each with its own
 * re-entrancy, as two instances would be.
 */
class MemoryStoreKitTest {

    @Nested
    class Tokens extends SingleUseTokensContract {
        private final LocalSingleUseTokens tokens = new LocalSingleUseTokens();

        @Override
        protected SingleUseTokens newInstance() {
            return tokens;
        }
    }

    @Nested
    class Locks extends LockManagerContract {
        private LocalLockManager first;

        @Override
        protected LockManager newInstance() {
            if (first == null) {
                first = new LocalLockManager("instance-one");
                return first;
            }
            return first.onTheSameMemory("instance-two");
        }

        @Override
        protected boolean locksAreLeases() {
            return false;
        }
    }

    @Nested
    class ConcurrencyLimits extends ConcurrencyLimiterContract {
        private final LocalConcurrencyLimiter limiter = new LocalConcurrencyLimiter();

        @Override
        protected ConcurrencyLimiter newInstance() {
            return limiter;
        }
    }

    @Nested
    class AdaptiveConcurrencyLimits extends AdaptiveConcurrencyLimiterContract {
        private final LocalConcurrencyLimiter limiter = new LocalConcurrencyLimiter();

        @Override
        protected AdaptiveConcurrencyLimiter newInstance() {
            return limiter;
        }
    }
}
