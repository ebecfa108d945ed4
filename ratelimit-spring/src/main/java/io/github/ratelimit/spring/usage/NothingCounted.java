package io.github.ratelimit.spring.usage;

import io.github.ratelimit.core.Usage;
import java.time.Instant;
import java.util.List;

/**
 * What a read answers while rate limits are off ({@code ratelimit.enabled=false}): no window, read now. There is no
 * store, so no store's clock: the JVM's says when, as the limiter of the disabled mode does.
 */
final class NothingCounted {

    private NothingCounted() {}

    static Usage read() {
        return new Usage(Instant.now(), List.of());
    }
}
