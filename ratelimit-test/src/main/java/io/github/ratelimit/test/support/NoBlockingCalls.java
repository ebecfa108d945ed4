package io.github.ratelimit.test.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Installs BlockHound once for this JVM and fails a test class when any blocking call was made on a non-blocking
 * thread (Reactor Netty's event loops, Reactor's parallel scheduler, Redisson's I/O threads) while it ran. Every call
 * is recorded with its stack rather than thrown, so that a blocking call inside a library's callback is not swallowed.
 */
public final class NoBlockingCalls implements BeforeAllCallback, AfterAllCallback {

    private static final List<String> calls = new CopyOnWriteArrayList<>();
    private static volatile boolean installed;

    @Override
    public void beforeAll(ExtensionContext context) {
        synchronized (NoBlockingCalls.class) {
            if (!installed) {
                BlockHound.install(builder -> builder
                        // idle pool workers wait for their next task: not a call that blocks work
                        .allowBlockingCallsInside(ThreadPoolExecutor.class.getName(), "getTask")
                        // Redisson guards its own bookkeeping of pending futures with a short lock, which may park for
                        // a moment under contention: not a wait for Redis
                        .allowBlockingCallsInside("org.redisson.misc.WrappedLock", "execute")
                        // Netty's buffer allocator takes a short lock on its own magazines when it grows them under
                        // contention (seen once, for a JSON body encoded on a parallel thread): its bookkeeping, not
                        // I/O
                        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "allocate")
                        // kotlin-reflect fills its own class-metadata cache under a short lock, once per class
                        // (seen when many first requests encode one Kotlin class together): its bookkeeping, not I/O
                        .allowBlockingCallsInside("kotlin.reflect.jvm.internal.impl.storage.DefaultSimpleLock", "lock")
                        .blockingMethodCallback(method -> {
                            StackTraceElement[] stack = new Throwable().getStackTrace();
                            if (housekeeping(stack)) {
                                return;
                            }
                            StringBuilder where = new StringBuilder(
                                    method + " on " + Thread.currentThread().getName());
                            for (StackTraceElement frame : stack) {
                                where.append("\n    at ").append(frame);
                            }
                            calls.add(where.toString());
                            System.err.println("Blocking call on a non-blocking thread: " + where);
                        }));
                installed = true;
                // the hound is on: a sleep on a parallel thread is recorded
                Mono.fromCallable(() -> {
                            Thread.sleep(1);
                            return true;
                        })
                        .subscribeOn(Schedulers.parallel())
                        .block();
                assertThat(calls)
                        .as("BlockHound records a sleep on a parallel thread")
                        .hasSize(1);
            }
        }
        calls.clear();
    }

    /** Frames of the JDK, Netty and Redisson, and of this extension: a library's own bookkeeping. */
    private static final List<String> LIBRARY = List.of(
            "java.",
            "jdk.",
            "sun.",
            "io.netty.",
            "org.redisson.",
            "reactor.blockhound.",
            NoBlockingCalls.class.getName());

    /**
     * Whether a blocking call is the client library's own housekeeping (its stack holds no frame of the starter, the
     * application, Spring or Reactor: nothing done for a call), such as a lock Redisson takes around its own state.
     */
    static boolean housekeeping(StackTraceElement[] stack) {
        for (StackTraceElement frame : stack) {
            String type = frame.getClassName();
            if (LIBRARY.stream().noneMatch(type::startsWith)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        assertThat(calls).as("blocking calls on non-blocking threads").isEmpty();
    }
}
