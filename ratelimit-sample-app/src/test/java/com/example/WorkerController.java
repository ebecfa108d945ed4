package com.example;

import io.github.ratelimit.annotation.Locked;
import io.github.ratelimit.core.locks.LockManager.LockHandle;
import java.util.Map;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** The README's lock snippet. */
@RestController
class WorkerController {

    @PostMapping("/api/workers/{userId}")
    @Locked(name = "worker", key = "#userId", leaseMs = 5_000, maxLifetimeMs = 40_000)
    Map<String, Object> work(@PathVariable String userId, LockHandle lock) {
        lock.checkHeld(); // throws LockLostException if the lock ran out
        return Map.of("fencingToken", lock.fencingToken()); // grows with every grant: storage rejects stale holders
    }
}
