package io.github.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

/**
 * Skewed application clocks cannot matter because the decision path never reads one: no class that takes
 * part in a decision calls a clock of the JVM. Time comes from {@code redis.call('TIME')} only (the Redis
 * tests check that a decision's time is the server's).
 *
 * <p>Left out on purpose, because they time waiting, not decisions: the lock manager (the caller's own wait
 * budget and, conservatively from before each request was sent, how long its lease lasts) and the guard
 * (the latency budget and how long Redis is left alone after failures), both on the JVM's monotonic timer; and
 * the log throttle, which times how often a repeated line is written; and the local refusals, which repeat a
 * refusal Redis made until the time Redis said, counted from before the request was sent; and the leases of leased
 * limits, spent until the end of the window Redis said, counted the same way (which window a permit belongs to, and how
 * many a window has, is Redis's); and the concurrency
 * limiter's slots, which the JVM renews up to their maximum lifetime (who holds a slot, and until when, is the
 * script's, on Redis time); and the meters (how long Redis took), the warm-up at start (how long it may take), the
 * limiter of the disabled mode (which admits everything) and what a usage read answers then (nothing counted), the limiter in memory, which decides only while Redis
 * cannot, and then on the JVM's monotonic clock, and the rest of the memory store ({@code ratelimit.store=memory}, no
 * Redis at all), and the guess of Redis's clock that names the calendar periods a
 * decision sends (the last Redis time plus monotonic time; Redis's own TIME chooses the period among them).
 * Who is admitted and who holds a lock or a slot is still decided by Redis alone.
 */
class NoApplicationClockTest {

    private static final Set<String> CLOCK_OWNERS = Set.of(
            "java/time/Instant",
            "java/time/Clock",
            "java/time/LocalDateTime",
            "java/time/ZonedDateTime",
            "java/time/OffsetDateTime",
            "java/util/Date");

    @Test
    void decisionPathCallsNoJvmClock() throws IOException {
        List<String> calls = new ArrayList<>();
        int scanned = 0;
        for (String module : List.of(
                "ratelimit-core",
                "ratelimit-redis",
                "ratelimit-spring",
                "ratelimit-spring-boot-autoconfigure",
                "ratelimit-spring-cloud-gateway",
                "ratelimit-grpc",
                "ratelimit-graphql",
                "ratelimit-kafka")) {
            scanned += scan(Paths.get("..", module, "target/classes/io/github/ratelimit"), calls);
        }
        assertThat(scanned).isGreaterThan(60);
        assertThat(calls).isEmpty();
    }

    /** Scans one module's classes of the decision path, adding the clock calls found; returns how many it read. */
    private static int scan(Path classes, List<String> calls) throws IOException {
        assertThat(classes)
                .as("the classes of a module, built before this test")
                .isDirectory();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String pkg = classes.relativize(file).getName(0).toString();
                if (!Set.of("core", "redis", "spring", "autoconfigure", "local", "gateway", "grpc", "graphql", "kafka")
                        .contains(pkg)) {
                    continue;
                }
                String fileName = file.getFileName().toString();
                if (fileName.startsWith("RedisLock") // a held lock's lease and lifetime
                        || fileName.startsWith("RedisConcurrencyLimiter")
                        || fileName.startsWith("RedisGuard")
                        || fileName.startsWith("BudgetTimer") // a call's budget
                        || fileName.startsWith("OutageLog") // since when Redis is away, for operators
                        || fileName.startsWith("LocalRefusals")
                        || fileName.startsWith("Leases") // spends a lease until the window's end Redis told
                        || fileName.startsWith("Replicas") // how old its answer about the topology is
                        || fileName.startsWith("LogThrottle")
                        || fileName.startsWith("RateLimitMetricsListener") // times Redis calls for the metrics
                        || fileName.startsWith("RateLimitWarmUp") // bounds the warm-up at start
                        || fileName.startsWith("Waiting") // a waiting caller's own deadline; Redis gives the advice
                        || fileName.startsWith("RedisBlocks") // a block's time left since Redis's time was read
                        // which calendar periods a decision names, around Redis's last time; Redis's TIME chooses
                        || fileName.startsWith("RedisClock")
                        || fileName.startsWith("RedisMirror") // when a read was asked for, to date what it read
                        || fileName.startsWith("OutboundLimits") // an upstream's Retry-After date without its Date
                        || fileName.startsWith("RateLimitAutoConfiguration$Disabled") // admits all, no Redis
                        || fileName.startsWith("NothingCounted") // a usage read while rate limits are off, no Redis
                        // the store in memory: the limiter that decides when Redis cannot, and the tokens, locks and
                        // concurrency limits of ratelimit.store=memory, where no Redis clock exists
                        || pkg.equals("local")) {
                    continue;
                }
                scanned++;
                try (InputStream in = Files.newInputStream(file)) {
                    new ClassReader(in)
                            .accept(new ClockCallFinder(file.getFileName().toString(), calls), 0);
                }
            }
        }
        return scanned;
    }

    private static final class ClockCallFinder extends ClassVisitor {
        private final String className;
        private final List<String> calls;

        ClockCallFinder(String className, List<String> calls) {
            super(Opcodes.ASM9);
            this.className = className;
            this.calls = calls;
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            return new MethodVisitor(Opcodes.ASM9) {
                @Override
                public void visitMethodInsn(
                        int opcode, String owner, String method, String methodDescriptor, boolean isInterface) {
                    boolean systemClock = owner.equals("java/lang/System")
                            && (method.equals("currentTimeMillis") || method.equals("nanoTime"));
                    boolean timeNow = CLOCK_OWNERS.contains(owner)
                            && (method.equals("now")
                                    || method.equals("<init>")
                                            && owner.equals("java/util/Date")
                                            && methodDescriptor.equals("()V"));
                    if (systemClock || timeNow || owner.equals("java/time/Clock")) {
                        calls.add(className + "." + name + " calls " + owner + "." + method);
                    }
                }
            };
        }
    }
}
