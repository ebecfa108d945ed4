package io.github.ratelimit.decision;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.RateLimit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs the calls that shadow limits would have refused, without flooding the log: the first would-be
 * rejection of each limit, then every 100th, with the running count.
 */
final class ShadowRejections {

    private static final Logger log = LoggerFactory.getLogger(ShadowRejections.class);
    private static final long EVERY = 100;

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    /** Records the would-be rejections of a decision (none if every shadow limit had room). */
    void record(Decision decision) {
        for (LimitOutcome outcome : decision.shadowRejected()) {
            RateLimit limit = outcome.request().limit();
            String name = limit.name() + " (" + limit.limit() + " per " + limit.windowMs() + " ms)";
            long count = counts.computeIfAbsent(name, n -> new AtomicLong()).incrementAndGet();
            if (count == 1 || count % EVERY == 0) {
                log.warn("Shadow limit {} would have refused a call ({} so far); not enforced", name, count);
            }
        }
    }
}
