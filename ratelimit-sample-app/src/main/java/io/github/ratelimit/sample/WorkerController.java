package io.github.ratelimit.sample;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import java.util.Map;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
class WorkerController {

    static final long MAX_DURATION_MS = 30_000;

    /**
     * Runs a simulated worker for {@code durationMs} (default 2000, capped at 30000) while holding the user's
     * lock: one worker per user at a time, on any instance; its lease is renewed while it runs, for at most
     * 40 s in all.
     */
    @PostMapping("/api/workers/{userId}")
    @Locked(name = "worker", key = "#userId", leaseMs = 5_000, maxLifetimeMs = 40_000)
    Map<String, Object> work(
            @PathVariable String userId, @RequestParam(defaultValue = "2000") long durationMs, LockHandle lock)
            throws InterruptedException {
        long duration = Math.max(0, Math.min(durationMs, MAX_DURATION_MS));
        Thread.sleep(duration); // the simulated work
        return Map.of(
                "userId",
                userId,
                "fencingToken",
                lock.fencingToken(),
                "durationMs",
                duration,
                "stillHeld",
                lock.isHeld());
    }
}
