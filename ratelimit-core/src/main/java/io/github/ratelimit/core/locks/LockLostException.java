package io.github.ratelimit.core.locks;

/** The lock expired or was taken by another holder while this holder thought it held it. */
public class LockLostException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public LockLostException(String key) {
        super("The lock " + LockManager.quotedKey(key)
                + " is no longer held: its lease ran out or it was taken by another holder");
    }
}
