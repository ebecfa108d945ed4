package io.github.ratelimit.spring.internal;

import java.util.concurrent.CompletionStage;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * How a reactive integration (the WebFlux filter, the outbound clients, the gateway's route limiter) waits for an answer
 * from Redis without working on the thread that completed it.
 */
public final class FromRedis {

    /**
     * Where what follows an answer from Redis runs when nothing waits for it: never on the thread that completed the
     * answer, one of Redisson's I/O threads or the budget timer's. Every moment the application's code (a handler, a
     * response being written, classes loaded on a first call) spends on such a thread delays the answers of every other
     * call behind it, until they run out of their budget and are decided without Redis.
     */
    public static final Scheduler SCHEDULER = Schedulers.parallel();

    private FromRedis() {}

    /** A stage of Redis's answer as a Mono whose subscriber is signalled on {@link #SCHEDULER}. */
    public static <T> Mono<T> mono(CompletionStage<T> answer) {
        return Mono.fromCompletionStage(answer).publishOn(SCHEDULER);
    }
}
