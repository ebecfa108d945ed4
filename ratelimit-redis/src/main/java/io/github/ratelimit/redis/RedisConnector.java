package io.github.ratelimit.redis;

import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.redis.internal.AclRefusals;
import io.github.ratelimit.redis.internal.ScriptExecutor;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the first connection to Redis on a background thread, so that the application starts and serves whatever
 * state Redis is in (refused, hung, slow, unknown host, wrong password). Until a first command has been answered,
 * the {@link RedisGuard} refuses every call at once (the fallback: fail open, or 503), so no request thread waits
 * for a connection; the connector tries again every {@code retryEvery} until Redis answers. From then on Redisson
 * keeps its connections up by itself, and the guard handles later outages.
 *
 * <p>With a client made with Redisson's lazy initialisation, the connector's own command is what makes Redisson
 * connect, on the connector's thread. A client that is already connected is simply found reachable.
 */
public final class RedisConnector implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisConnector.class);

    private final RedissonClient redisson;
    private final RedisGuard guard;
    private final Duration connectTimeout;
    private final Duration retryEvery;
    private final List<Consumer<RedissonClient>> onConnected;
    private final RedisHealthProbe probe;
    private final CountDownLatch firstAttempt = new CountDownLatch(1);
    private final CountDownLatch firstConnection = new CountDownLatch(1);
    private volatile @Nullable Throwable lastFailure;
    private volatile boolean closed;
    private @Nullable Thread thread;

    /**
     * @param redisson the client; not closed by this class
     * @param guard the guard to open for calls once Redis answers
     * @param connectTimeout how long one attempt (connection and handshake) may take
     * @param retryEvery pause between attempts
     * @param onConnected run once, on the connector's thread, after the first connection (failures are logged), after
     *     the connector's own check that Redis may not evict the limiter's keys (a warning when its
     *     {@code maxmemory-policy} could)
     */
    public RedisConnector(
            RedissonClient redisson,
            RedisGuard guard,
            Duration connectTimeout,
            Duration retryEvery,
            List<Consumer<RedissonClient>> onConnected) {
        this.redisson = redisson;
        this.guard = guard;
        this.connectTimeout = connectTimeout;
        this.retryEvery = retryEvery;
        List<Consumer<RedissonClient>> tasks = new ArrayList<>();
        tasks.add(new RedisMemoryPolicyCheck());
        tasks.addAll(onConnected);
        this.onConnected = List.copyOf(tasks);
        this.probe = new RedisHealthProbe(redisson, guard);
        guard.prober(ScriptExecutor.probe(redisson, guard.probeBudget()));
    }

    /** Starts connecting in the background; calls are answered without Redis until it answers. */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        guard.connecting();
        thread = new Thread(this::run, "ratelimit-redis-connect");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Waits for the first connection, at most until the first attempt has failed or {@code timeout} has passed.
     *
     * @return null when connected, else why not
     */
    public @Nullable Throwable awaitFirstAttempt(Duration timeout) {
        try {
            if (!firstAttempt.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return new TimeoutException("no answer within " + timeout.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        }
        return guard.isConnected() ? null : lastFailure;
    }

    /**
     * Waits until the first connection is made, however many attempts it takes, at most {@code timeout}: for a
     * program that should not make its first calls before Redis answers (the first connection can take many seconds
     * on a busy machine, with TLS or a slow DNS). Until then calls are answered as the failure modes say.
     *
     * @return whether Redis is connected
     */
    public boolean awaitConnected(Duration timeout) {
        try {
            return firstConnection.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void run() {
        while (!closed) {
            try {
                ping();
                guard.connected();
                firstAttempt.countDown();
                firstConnection.countDown();
                log.debug("Connected to Redis {}", guard.target());
                for (Consumer<RedissonClient> task : onConnected) {
                    try {
                        task.accept(redisson);
                    } catch (RuntimeException e) {
                        log.debug("A task after connecting to Redis failed", e);
                    }
                }
                return;
            } catch (RuntimeException e) {
                if (closed) {
                    return;
                }
                lastFailure = e;
                String refused = AclRefusals.refusal(e);
                if (refused != null) {
                    guard.refused(AclRefusals.describe(refused, AclRefusals.user(redisson)));
                } else {
                    guard.notConnected(describe(e));
                }
                firstAttempt.countDown();
                log.debug("Connecting to Redis {} failed", guard.target(), e);
            }
            try {
                Thread.sleep(retryEvery.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void ping() {
        try {
            ScriptExecutor.probe(redisson, connectTimeout)
                    .get()
                    .toCompletableFuture()
                    .get(connectTimeout.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + connectTimeout.toMillis() * 2 + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = Futures.cause(e);
            throw cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** One line saying why Redis could not be reached, and what to check where the fix is in configuration. */
    static String describe(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        if (RedisErrors.anyCauseSays(error, "WRONGPASS", "NOAUTH", "invalid password")) {
            return "Redis refused the credentials (" + firstLine(root)
                    + "); check spring.data.redis.username and spring.data.redis.password (or the user info of"
                    + " spring.data.redis.url)";
        }
        if (root instanceof UnknownHostException) {
            return "unknown host " + root.getMessage() + "; check spring.data.redis.host (or spring.data.redis.url)";
        }
        if (root instanceof ConnectException) {
            return "connection refused (" + firstLine(root) + ")";
        }
        return firstLine(root);
    }

    private static String firstLine(Throwable error) {
        String message = error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /** The kind and addresses of a client's Redis, for the log (never a password). */
    public static String describe(RedissonClient client) {
        var config = client.getConfig();
        if (config.isClusterConfig()) {
            return "cluster " + config.useClusterServers().getNodeAddresses();
        }
        if (config.isSentinelConfig()) {
            return "sentinel master '" + config.useSentinelServers().getMasterName() + "'";
        }
        return config.useSingleServer().getAddress();
    }

    /**
     * Checks that Redis answers within the budget and knows the starter's scripts, loading any it forgot: details for
     * the health endpoint. Throws {@code RedisUnavailableException} when Redis does not answer.
     */
    public Map<String, Object> healthCheck() {
        return probe.check();
    }

    /**
     * The health of the limiter's Redis, for a health endpoint whose status stays up: the limiter keeps serving
     * without Redis, so no orchestrator should take every instance out of service because their shared Redis is gone.
     * The details say {@code degraded: true} after three failed checks in a row, or at once while the circuit breaker
     * is open or the first connection has not been made, with Redis's address, since when, the error, and
     * {@code decisions}: how rate limits are decided meanwhile.
     *
     * @param decisionsWithoutRedis how rate limits are decided while Redis cannot, in words
     */
    public Map<String, Object> health(String decisionsWithoutRedis) {
        return probe.report(decisionsWithoutRedis);
    }

    /**
     * Stops connecting, and waits (at most the longest an attempt may take) for an attempt under way to end, so that
     * the client can be shut down after this with no attempt of this connector still running on it.
     */
    @Override
    public void close() {
        Thread connecting;
        synchronized (this) {
            closed = true;
            connecting = thread;
        }
        if (connecting != null && connecting != Thread.currentThread()) {
            connecting.interrupt();
            try {
                connecting.join(connectTimeout.toMillis() * 2 + 100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
