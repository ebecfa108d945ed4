package io.github.ratelimit.decision;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RedisUnavailableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Local limits across a Redis that comes and goes: the instance's share (5 on two instances: 2) is used up once, not
 * once per return of Redis, while the window lasts.
 */
class LocalLimitsTest {

    private static final RedisUnavailableException GONE =
            new RedisUnavailableException("Redis did not answer within 200 ms", Duration.ofSeconds(1), null);

    @Test
    void aRedisThatComesAndGoesDoesNotGiveAFreshLocalShareEachTime() {
        LocalLimits local = new LocalLimits(100, () -> 2);
        RateLimit limit = RateLimit.of("flapping", Algorithm.SLIDING_WINDOW, 5, 60_000);
        List<LimitRequest> call = List.of(LimitRequest.of(limit, "client", 1));
        List<Boolean> admitted = new ArrayList<>();
        for (int flip = 0; flip < 3; flip++) {
            for (int i = 0; i < 2; i++) {
                admitted.add(local.decide("flapping", call, GONE).allowed());
            }
            local.redisDecides(); // Redis answered one call in between
        }
        assertThat(admitted).containsExactly(true, true, false, false, false, false);
    }
}
