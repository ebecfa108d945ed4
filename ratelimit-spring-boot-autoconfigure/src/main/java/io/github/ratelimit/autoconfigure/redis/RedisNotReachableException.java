package io.github.ratelimit.autoconfigure.redis;

/** Redis did not answer at startup while {@code ratelimit.redis.require-at-startup=true}. */
final class RedisNotReachableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String target;
    private final String reason;

    RedisNotReachableException(String target, String reason, Throwable cause) {
        super("Redis " + target + " not reachable at startup: " + reason, cause);
        this.target = target;
        this.reason = reason;
    }

    String target() {
        return target;
    }

    String reason() {
        return reason;
    }
}
