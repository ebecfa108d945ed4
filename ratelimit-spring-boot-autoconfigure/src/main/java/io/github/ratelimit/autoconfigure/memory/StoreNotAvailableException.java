package io.github.ratelimit.autoconfigure.memory;

/** {@code ratelimit.store} is redis (the default), and the Redis module is not on the class path. */
final class StoreNotAvailableException extends RuntimeException {

    StoreNotAvailableException() {
        super("ratelimit.store is redis (the default), but the Redis module (io.github.ratelimit:ratelimit-redis) is"
                + " not on the class path");
    }
}
