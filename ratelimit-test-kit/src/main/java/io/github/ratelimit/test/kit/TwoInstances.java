package io.github.ratelimit.test.kit;

import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * What every contract of the kit shares: two instances of the implementation under test, standing for two instances
 * of an application on one store. Extend a contract, not this class.
 *
 * @param <T> the SPI under test
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TwoInstances<T> {

    private T first;
    private T second;

    TwoInstances() {}

    /**
     * A new instance of the implementation under test. Called twice per test class (once where
     * {@link #instancesShareState()} is false); both instances must use the same store.
     */
    protected abstract T newInstance();

    /**
     * Whether two instances share what they count, as instances on one store do. An implementation that keeps its
     * state in its own memory returns false: its promises are then checked on one instance.
     */
    protected boolean instancesShareState() {
        return true;
    }

    @BeforeAll
    final void makeTwoInstances() {
        first = newInstance();
        second = instancesShareState() ? newInstance() : first;
    }

    /** The instance for the {@code i}-th thread or call: the two alternate. */
    protected final T instance(int i) {
        return i % 2 == 0 ? first : second;
    }

    /** A name, key or identifier that no other test uses, so that the store need not be emptied between tests. */
    protected static String fresh(String what) {
        return what + "-" + UUID.randomUUID();
    }
}
