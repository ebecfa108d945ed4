package io.github.ratelimit.redis.limits;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.CalendarPeriod;
import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.Decision.LimitOutcome;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.redis.internal.RedisKeys;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What the rate limit script is told and what it answers (see decide/decide.lua): each key's spec as text, made once per
 * limit, and each slot's reply read into outcomes. The one place that knows the script's argument and reply formats on
 * the Java side.
 */
final class RateLimitScriptCodec {

    private final int horizonWindows;

    /** @param horizonWindows how many windows ahead staggered advice may reach */
    RateLimitScriptCodec(int horizonWindows) {
        this.horizonWindows = horizonWindows;
    }

    /** How each limit is given to the script, made once per limit rather than on every decision. */
    private final Cache<RateLimit, Spec> specs = Caffeine.newBuilder()
            .maximumSize(RedisKeys.MAX_CACHED_LIMITS)
            .executor(Runnable::run) // see RedisKeys
            .build();

    /**
     * A limit's spec for the script (see decide/decide.lua): the numbers before the cost, those after the flags (for a
     * calendar quota, up to the periods' starts, which are added per decision), the whole spec for a cost of 1 without
     * flags (the common request; null for a calendar quota), and its limit and window as a key of several windows
     * lists them.
     */
    private record Spec(
            String start, String end, long horizonMs, String options, @Nullable String oneUnit, String window) {}

    /** The most a sliding window counts per window in Redis (its ring's capacity, in 3 bytes: ring.lua). */
    static final long MAX_SLIDING_LIMIT = 16_777_215;

    /** Fails for a limit Redis cannot count: a sliding window of more than {@link #MAX_SLIDING_LIMIT}. */
    static void check(RateLimit limit) {
        if (limit.algorithm() == Algorithm.SLIDING_WINDOW && limit.limit() > MAX_SLIDING_LIMIT) {
            throw new IllegalArgumentException("limit '" + limit.name() + "' is a sliding window of " + limit.limit()
                    + " per window, but Redis counts at most " + MAX_SLIDING_LIMIT
                    + " per sliding window (each is kept): use a fixed window or a token bucket for more");
        }
    }

    private Spec spec(RateLimit limit) {
        return specs.get(limit, l -> {
            boolean options = l.period() != null || !l.penalty().isZero() || l.ceiling() != l.limit();
            String start = (l.period() != null ? 5 : algorithmCode(l)) + "," + l.ceiling() + ',' + l.windowMs() + ',';
            long horizonMs = l.windowMs() * horizonWindows;
            String optionsText = options ? "|" + l.limit() + ',' + l.penalty().toMillis() : "";
            String end = "," + horizonMs + optionsText;
            return new Spec(
                    start,
                    end,
                    horizonMs,
                    optionsText,
                    l.period() != null ? null : start + "1,0" + end,
                    l.limit() + "," + l.windowMs());
        });
    }

    /**
     * Whether a refused call of this request may hold a slot (see decide.lua, hold): a plain sliding window (no options,
     * not leased) with staggered advice.
     */
    static boolean canHold(LimitRequest request) {
        RateLimit limit = request.limit();
        return request.staggered()
                && limit.algorithm() == io.github.ratelimit.annotation.Algorithm.SLIDING_WINDOW
                && limit.period() == null
                && limit.penalty().isZero()
                && limit.ceiling() == limit.limit()
                && !limit.leased();
    }

    /**
     * The starts of the periods around the last time a calendar quota's spec was made, per period, with the text the
     * script is given (made again once that time left the middle period).
     */
    private final Map<CalendarPeriod, Bounds> bounds = new ConcurrentHashMap<>();

    private record Bounds(long from, long to, String text) {

        static Bounds around(CalendarPeriod period, long epochMs) {
            long[] starts = period.boundsAround(Instant.ofEpochMilli(epochMs));
            return new Bounds(
                    starts[1], starts[2], "," + starts[0] + ',' + starts[1] + ',' + starts[2] + ',' + starts[3]);
        }
    }

    /**
     * One key's spec for the script; a calendar quota's names the periods around {@code redisNowMs}, the application's
     * best guess of Redis's clock (the script chooses among them by Redis's own).
     */
    String spec(LimitRequest request, long redisNowMs) {
        return spec(request, redisNowMs, 0);
    }

    /**
     * The same, for a call that may hold a slot up to {@code holdWithinMs} ahead when refused (0: it may not): its
     * horizon is then that wait, if shorter, and it has flag 8 ({@link #canHold} must be true).
     */
    String spec(LimitRequest request, long redisNowMs, long holdWithinMs) {
        RateLimit limit = request.limit();
        Spec spec = spec(limit);
        int flags = (request.shadow() ? 1 : 0)
                + (request.staggered() ? 2 : 0)
                + (request.checkOnly() ? 4 : 0)
                + (holdWithinMs > 0 ? 8 : 0);
        String text;
        if (holdWithinMs > 0) {
            text = spec.start()
                    + request.cost()
                    + ','
                    + flags
                    + ','
                    + Math.min(spec.horizonMs(), holdWithinMs)
                    + spec.options();
        } else {
            text = request.cost() == 1 && flags == 0 && spec.oneUnit() != null
                    ? spec.oneUnit()
                    : spec.start() + request.cost() + ',' + flags + spec.end();
        }
        if (limit.period() == null) {
            return text;
        }
        Bounds around = bounds.get(limit.period());
        if (around == null || redisNowMs < around.from() || redisNowMs >= around.to()) {
            around = Bounds.around(limit.period(), redisNowMs);
            bounds.put(limit.period(), around);
        }
        return text + around.text();
    }

    /** A limit's limit and window as a key of several windows lists them. */
    String windowSpec(RateLimit limit) {
        return spec(limit).window();
    }

    /**
     * One slot's reply (see decide/decide.lua) in full: admitted (2: holds a slot), Redis time, four values per answer (allowed, remaining,
     * reset ms, retry ms), then the positions (from 1) of answers whose staggered advice reached the horizon. The
     * script sends an answer that has room and resets a whole window from now as its remaining count alone; the window
     * is the request's.
     */
    static long[] answers(Object reply, List<LimitRequest> requests) {
        if (!(reply instanceof String joined)) {
            throw new IllegalStateException("Unexpected reply from the rate limit script: " + reply);
        }
        Numbers numbers = new Numbers(joined);
        long[] full = new long[2 + 4 * requests.size()];
        full[0] = numbers.next();
        full[1] = numbers.next();
        for (int i = 0; i < requests.size(); i++) {
            int at = 2 + 4 * i;
            long first = numbers.next();
            if (first >= 0) {
                full[at] = 1;
                full[at + 1] = first;
                full[at + 2] = requests.get(i).limit().windowMs();
            } else {
                full[at] = first + 2;
                full[at + 1] = numbers.next();
                full[at + 2] = numbers.next();
                full[at + 3] = numbers.next();
            }
        }
        while (numbers.hasNext()) {
            full = Arrays.copyOf(full, full.length + 1);
            full[full.length - 1] = numbers.next();
        }
        return full;
    }

    /** The integers of a reply joined by commas, read in place. */
    static final class Numbers {

        private final String joined;
        private int at;

        Numbers(String joined) {
            this.joined = joined;
        }

        boolean hasNext() {
            return at < joined.length();
        }

        long next() {
            int end = joined.indexOf(',', at);
            end = end < 0 ? joined.length() : end;
            if (at >= end) {
                throw new IllegalStateException("Unexpected reply from the rate limit script: " + joined);
            }
            long value = 0;
            boolean negative = joined.charAt(at) == '-';
            for (int i = negative ? at + 1 : at; i < end; i++) {
                char c = joined.charAt(i);
                if (c < '0' || c > '9' || i - at > 17) {
                    value = exponentForm(joined.substring(at, end));
                    at = end + 1;
                    return value;
                }
                value = value * 10 + (c - '0');
            }
            at = end + 1;
            return negative ? -value : value;
        }

        /** Lua writes integers beyond 14 digits in exponent form. */
        private long exponentForm(String text) {
            try {
                return (long) Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw new IllegalStateException("Unexpected reply from the rate limit script: " + joined, e);
            }
        }
    }

    /**
     * A slot's decision; a call that holds a slot (admitted 2, see decide.lua) is admitted at that slot's time, each
     * outcome telling the wait ({@link Decision#startsIn}).
     */
    static Decision toDecision(List<LimitRequest> requests, long[] reply) {
        boolean admitted = reply[0] >= 1;
        long wait = 0;
        if (reply[0] == 2) {
            for (int i = 0; i < requests.size(); i++) {
                if (reply[2 + 4 * i] == 1) {
                    wait = Math.max(wait, reply[2 + 4 * i + 3]);
                }
            }
        }
        Instant decidedAt = Instant.ofEpochMilli(reply[1] + wait);
        List<LimitOutcome> outcomes = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            int base = 2 + 4 * i;
            RateLimit limit = requests.get(i).limit();
            outcomes.add(new LimitOutcome(
                    requests.get(i),
                    reply[base] == 1,
                    Math.max(0, reply[base + 1]),
                    reply[base + 2] == limit.windowMs()
                            ? limit.window()
                            : Duration.ofMillis(Math.max(0, reply[base + 2])),
                    Duration.ofMillis(Math.max(0, reply[base + 3])),
                    capped(reply, requests.size(), i)));
        }
        return new Decision(admitted, outcomes, decidedAt);
    }

    /** Whether the reply lists answer {@code i} (from 0) among those whose staggered advice reached the horizon. */
    private static boolean capped(long[] reply, int answers, int i) {
        for (int k = 2 + 4 * answers; k < reply.length; k++) {
            if (reply[k] == i + 1) {
                return true;
            }
        }
        return false;
    }

    static int algorithmCode(RateLimit limit) {
        return switch (limit.algorithm()) {
            case SLIDING_WINDOW -> 1;
            case FIXED_WINDOW -> 2;
            case TOKEN_BUCKET -> 3;
        };
    }
}
