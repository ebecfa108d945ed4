package io.github.ratelimit.redis;

import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.redis.internal.AclRefusals;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What operators read of an outage of one Redis: when it started and why (for health and the endpoint), one WARN when
 * it starts, a reminder at most every {@value #REPEAT_LOG_SECONDS} s with the calls answered without Redis so far, and
 * one INFO when Redis answers again. Logged under {@link RedisGuard}'s name.
 */
final class OutageLog {

    private static final Logger log = LoggerFactory.getLogger(RedisGuard.class);

    static final long REPEAT_LOG_SECONDS = 10;

    private static final String CONSEQUENCE = "rate limits follow their failure mode (local, open or closed),"
            + " single-use tokens and locks answer 503 with Retry-After";

    private final String target;
    private final AtomicLong answeredWithout = new AtomicLong();
    private final AtomicLong nextRepeatLog = new AtomicLong(System.nanoTime());
    private volatile @Nullable Instant since;
    private volatile @Nullable String lastError;

    OutageLog(String target) {
        this.target = named(target);
    }

    /** Redis, with where it is when that is known: "Redis redis://10.0.0.5:6379", or "Redis" (named once). */
    static String named(String target) {
        return target.isEmpty() || target.equals("Redis") ? "Redis" : "Redis " + target;
    }

    /** Since when Redis is unavailable, or null while it answers. */
    @Nullable
    Instant since() {
        return since;
    }

    /** Why Redis was last found unavailable, or null. */
    @Nullable
    String lastError() {
        return lastError;
    }

    /** Says why calls are refused before an outage is known (a connection being made), without logging. */
    void refusing(String why) {
        lastError = why;
    }

    /** A call answered without Redis: counted, and the reminder logged when it is due. */
    RedisUnavailableException answeredWithout(String message, Duration retryAfter, @Nullable Throwable cause) {
        long count = answeredWithout.incrementAndGet();
        Instant started = since;
        if (started != null && repeatLogDue()) {
            log.warn(
                    "{} still unavailable (since {}, {}): {} calls answered without it so far",
                    target,
                    started,
                    lastError,
                    count);
        }
        return new RedisUnavailableException(message, retryAfter, cause);
    }

    /** Redis was found unavailable: the first time of an outage, logged once. */
    void unavailable(String cause) {
        begins("is unavailable", cause, "until it answers");
    }

    /**
     * Redis answers, but refuses the limiter's commands (an ACL, scripting missing): an outage all the same, logged
     * once, with what was refused and what would allow it.
     */
    void refused(String cause) {
        begins(AclRefusals.REFUSES, cause, "until it allows them");
    }

    private void begins(String what, String cause, String until) {
        lastError = cause;
        if (since == null) {
            since = Instant.now();
            answeredWithout.set(0);
            nextRepeatLog.set(System.nanoTime() + TimeUnit.SECONDS.toNanos(REPEAT_LOG_SECONDS));
            log.warn("{} {} ({}); {}, {}", target, what, cause, until, CONSEQUENCE);
        }
    }

    /** Redis answered: the end of an outage, if one was going on, logged once. */
    synchronized void answersAgain() {
        Instant started = since;
        if (started != null) {
            since = null;
            log.info(
                    "{} answers again after {} ms; {} calls were answered without it",
                    target,
                    Duration.between(started, Instant.now()).toMillis(),
                    answeredWithout.get());
        }
    }

    /** Whether the reminder may be logged now; if so, the next one waits a full interval. */
    private boolean repeatLogDue() {
        long now = System.nanoTime();
        long at = nextRepeatLog.get();
        return now - at >= 0 && nextRepeatLog.compareAndSet(at, now + TimeUnit.SECONDS.toNanos(REPEAT_LOG_SECONDS));
    }
}
