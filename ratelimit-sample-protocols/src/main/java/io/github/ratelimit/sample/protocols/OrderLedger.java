package io.github.ratelimit.sample.protocols;

import io.github.ratelimit.core.Decision;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimitListener;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * What the instances processed, counted in Redis: each order with the processing that did it first (one processed
 * again, here or on another instance, is a duplicate) and each admission of the limit with its second, by the
 * decision's clock. The listener only notes what it did, with an id of its own; what is noted is written every 200 ms,
 * and kept while Redis cannot be written, so that an outage neither slows the listener nor loses a count. Writing again
 * what a write that timed out had written changes nothing: every write is keyed by those ids.
 */
@Component
public class OrderLedger implements RateLimitListener {

    private static final Logger log = LoggerFactory.getLogger(OrderLedger.class);

    private static final String PROCESSED = "sample:{orders}:processed";
    private static final String DUPLICATES = "sample:{orders}:duplicates";
    private static final String ADMISSIONS = "sample:{orders}:admissions";

    /** ARGV: how many processings, an order and its processing id for each, then each admission id and second. */
    private static final String WRITE =
            """
            local n = tonumber(ARGV[1])
            for i = 2, 2 * n, 2 do
                local first = redis.call('HGET', KEYS[1], ARGV[i])
                if not first then
                    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
                elseif first ~= ARGV[i + 1] then
                    redis.call('SADD', KEYS[2], ARGV[i + 1])
                end
            end
            for i = 2 * n + 2, #ARGV, 2 do
                redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
            end
            return n
            """;

    /** How many of each are written at most per script call. */
    private static final int CHUNK = 250;

    private final RScript redis;
    /** Pairs: an order and the id of its processing. */
    private final ConcurrentLinkedQueue<String[]> processings = new ConcurrentLinkedQueue<>();
    /** Pairs: an admission's id and its epoch second. */
    private final ConcurrentLinkedQueue<String[]> admissions = new ConcurrentLinkedQueue<>();

    private volatile boolean failing;

    OrderLedger(RedissonClient redisson) {
        this.redis = redisson.getScript(StringCodec.INSTANCE);
    }

    /** An order was processed. */
    void processed(String order) {
        processings.add(new String[] {order, UUID.randomUUID().toString()});
    }

    /** An admission of the {@code orders} limit, noted by its second. */
    @Override
    public Completion<Decision> deciding(List<LimitRequest> requests) {
        for (LimitRequest request : requests) {
            if (request.limit().name().equals(OrderListener.TOPIC)) {
                return new Completion<>() {
                    @Override
                    public void succeeded(Decision decision) {
                        if (decision.allowed()) {
                            admissions.add(new String[] {
                                UUID.randomUUID().toString(),
                                Long.toString(decision.decidedAt().getEpochSecond())
                            });
                        }
                    }

                    @Override
                    public void failed(Throwable error) {}
                };
            }
        }
        return Completion.ignored();
    }

    @Scheduled(fixedDelay = 200)
    void write() {
        while (!processings.isEmpty() || !admissions.isEmpty()) {
            List<String[]> someProcessings = take(processings);
            List<String[]> someAdmissions = take(admissions);
            List<Object> args = new ArrayList<>();
            args.add(Integer.toString(someProcessings.size()));
            someProcessings.forEach(pair -> args.addAll(List.of(pair)));
            someAdmissions.forEach(pair -> args.addAll(List.of(pair)));
            try {
                redis.eval(
                        PROCESSED,
                        RScript.Mode.READ_WRITE,
                        WRITE,
                        RScript.ReturnType.LONG,
                        List.of(PROCESSED, DUPLICATES, ADMISSIONS),
                        args.toArray());
                if (failing) {
                    failing = false;
                    log.info("Order counts written to Redis again");
                }
            } catch (RuntimeException e) {
                processings.addAll(someProcessings); // kept, and written (again) once Redis answers
                admissions.addAll(someAdmissions);
                if (!failing) {
                    failing = true;
                    log.warn("Order counts kept in memory until Redis answers: {}", e.getMessage());
                }
                return;
            }
        }
    }

    private static List<String[]> take(ConcurrentLinkedQueue<String[]> queue) {
        List<String[]> taken = new ArrayList<>();
        String[] next;
        while (taken.size() < CHUNK && (next = queue.poll()) != null) {
            taken.add(next);
        }
        return taken;
    }

    /** What every instance processed, as far as written. */
    Report report() {
        List<Object> read = redis.eval(
                PROCESSED,
                RScript.Mode.READ_ONLY,
                "return {redis.call('HLEN', KEYS[1]), redis.call('SCARD', KEYS[2]), redis.call('HVALS', KEYS[3])}",
                RScript.ReturnType.LIST,
                List.of(PROCESSED, DUPLICATES, ADMISSIONS));
        Map<Long, Long> seconds = new TreeMap<>();
        for (Object second : (List<?>) read.get(2)) {
            seconds.merge(Long.parseLong(second.toString()), 1L, Long::sum);
        }
        return new Report(
                Long.parseLong(read.get(0).toString()),
                Long.parseLong(read.get(1).toString()),
                List.copyOf(seconds.values()),
                seconds.isEmpty()
                        ? null
                        : Instant.ofEpochSecond(seconds.keySet().iterator().next()));
    }

    /**
     * @param processed orders processed, by every instance
     * @param duplicates orders processed again after the first time
     * @param perSecond the limit's admissions in each second that had any, from the first, by the decision's clock
     * @param from the first of those seconds
     */
    public record Report(long processed, long duplicates, List<Long> perSecond, @Nullable Instant from) {}
}
