package io.github.ratelimit.autoconfigure.internal;

import io.github.ratelimit.core.LimitRequest;
import java.util.List;

/** The calls the warm-up makes at start, by their limit's name: metrics and observations leave them out. */
public final class WarmUpCalls {

    /** The warm-up's limit name. */
    public static final String NAME = "ratelimit-warm-up";

    private WarmUpCalls() {}

    /** Whether a call belongs to the warm-up (its first limit's name says so). */
    public static boolean isWarmUp(List<LimitRequest> requests) {
        return !requests.isEmpty() && NAME.equals(requests.get(0).limit().name());
    }
}
