package io.github.ratelimit.autoconfigure.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.memory.RateLimitMemoryAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RateLimitListener;
import io.github.ratelimit.core.Usage;
import io.github.ratelimit.spring.usage.RateLimitUsage;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@link RateLimitUsage} as application code meets it, on the store in memory: by a limit's name and the value its key
 * gives, plan groups by the customer's plan; reading spends nothing; credits and resets are audited and told to the
 * listeners; names and keys the application does not declare are refused naming what there is; the bean backs off for
 * the application's own and stays, counting nothing, while rate limits are off.
 */
@ExtendWith(OutputCaptureExtension.class)
class RateLimitUsageAutoConfigurationTests {

    public static class Service {
        @RateLimited(limit = 3, windowMs = 60_000, name = "search", key = "#user")
        public String search(String user) {
            return "ok";
        }

        @RateLimited(plans = "monthly", key = "#apiKey")
        public String monthly(String apiKey) {
            return "ok";
        }

        @RateLimited(
                limit = 5,
                windowMs = 60_000,
                name = "two-keys",
                key = {"#user", "#tenant"})
        public String twoKeys(String user, String tenant) {
            return "ok";
        }
    }

    public static class Changes implements RateLimitListener {
        final List<String> told = new CopyOnWriteArrayList<>();

        @Override
        public void operatorChanged(String action, String target) {
            told.add(action + " " + target);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    RateLimitRedissonAutoConfiguration.class,
                    RateLimitRedisAutoConfiguration.class,
                    RateLimitMemoryAutoConfiguration.class,
                    RateLimitAutoConfiguration.class,
                    io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
                    RateLimitUsageAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("io.github.ratelimit.redis", "org.redisson"))
            .withPropertyValues(
                    "ratelimit.store=memory",
                    "ratelimit.plans.groups.monthly.plans.default[0].limit=3",
                    "ratelimit.plans.groups.monthly.plans.default[0].period=month",
                    "ratelimit.plans.groups.monthly.plans.pro[0].limit=1000",
                    "ratelimit.plans.groups.monthly.plans.pro[0].period=month",
                    "ratelimit.plans.customers.pro-key=pro")
            .withBean(Service.class)
            .withBean(Changes.class);

    private static int calls(Runnable call, int tries) {
        int admitted = 0;
        for (int i = 0; i < tries; i++) {
            try {
                call.run();
                admitted++;
            } catch (RateLimitExceededException e) {
                // refused
            }
        }
        return admitted;
    }

    @Test
    void readingSpendsNothingAndACreditGrantsMoreOnce(CapturedOutput output) {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            RateLimitUsage usage = context.getBean(RateLimitUsage.class);
            assertThat(calls(() -> service.search("ann"), 2)).isEqualTo(2);
            for (int i = 0; i < 5; i++) {
                Usage.Window window = usage.of("search", "ann").windows().get(0);
                assertThat(window.used()).isEqualTo(2);
                assertThat(window.remaining()).isEqualTo(1);
            }
            assertThat(calls(() -> service.search("ann"), 3))
                    .as("the reads spent nothing")
                    .isEqualTo(1);

            assertThat(usage.credit("search", "ann", 2, "billing")).isEqualTo(2);

            assertThat(calls(() -> service.search("ann"), 3)).isEqualTo(2);
            assertThat(context.getBean(Changes.class).told).containsExactly("credit search");
        });
        assertThat(output.getOut())
                .contains("'billing' credited #user " + RateLimitUsage.fingerprint(ClientIdentifier.of("#user", "ann"))
                        + " with 2 units of 'search' on every instance (2 granted)")
                .as("the customer's value, which may be an API key, is never logged")
                .doesNotContain("#user ann");
        assertThat(RateLimitUsage.fingerprint(ClientIdentifier.of("#user", "ann")))
                .matches("sha256:[0-9a-f]{12}");
    }

    @Test
    void aPlanGroupIsReadByTheCustomersPlan() {
        runner.run(context -> {
            RateLimitUsage usage = context.getBean(RateLimitUsage.class);
            assertThat(usage.of("monthly", "pro-key").windows().get(0).quota()).isEqualTo(1000);
            assertThat(usage.of("monthly", "another-key").windows().get(0).quota())
                    .isEqualTo(3);
        });
    }

    @Test
    void aResetForgetsTheCountsAndIsTold(CapturedOutput output) {
        runner.run(context -> {
            Service service = context.getBean(Service.class);
            RateLimitUsage usage = context.getBean(RateLimitUsage.class);
            assertThat(calls(() -> service.search("bob"), 4)).isEqualTo(3);

            usage.reset("search", null, "bob", null);

            assertThat(usage.of("search", "bob").windows().get(0).used()).isZero();
            assertThat(context.getBean(Changes.class).told).containsExactly("reset search");
        });
        assertThat(output.getOut())
                .contains("Application code (no principal) reset #user "
                        + RateLimitUsage.fingerprint(ClientIdentifier.of("#user", "bob")) + " under 'search'");
    }

    @Test
    void namesAndKeysTheApplicationDoesNotDeclareAreRefusedNamingWhatThereIs() {
        runner.run(context -> {
            RateLimitUsage usage = context.getBean(RateLimitUsage.class);
            assertThatThrownBy(() -> usage.of("yearly", "ann"))
                    .isInstanceOf(RateLimitUsage.UnknownLimitException.class)
                    .hasMessageStartingWith("no limit named 'yearly'; the limits are [")
                    .hasMessageContaining("search")
                    .hasMessageContaining("two-keys")
                    .satisfies(e -> assertThat(((RateLimitUsage.UnknownLimitException) e).incomplete())
                            .isFalse());
            assertThatThrownBy(() -> usage.of("two-keys", "ann"))
                    .isInstanceOf(RateLimitUsage.UnknownLimitException.class)
                    .hasMessage("limit 'two-keys' has the keys [#user, #tenant]: give the key as well as the value")
                    .satisfies(e -> assertThat(((RateLimitUsage.UnknownLimitException) e).incomplete())
                            .isTrue());
            assertThat(usage.of("two-keys", "#tenant", "acme").windows().get(0).remaining())
                    .isEqualTo(5);
            assertThatThrownBy(() -> usage.credit("search", "ann", 0, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("units");
        });
    }

    /**
     * While rate limits are off the bean stays (code that injects it keeps starting): reads answer no window, credits
     * grant nothing.
     */
    @Test
    void backsOffForTheApplicationsOwnAndAnswersNothingCountedWhileRateLimitsAreOff() {
        runner.withBean("mine", RateLimitUsage.class, () -> new RateLimitUsage(null, null))
                .run(context ->
                        assertThat(context).getBean(RateLimitUsage.class).isSameAs(context.getBean("mine")));
        runner.withPropertyValues("ratelimit.enabled=false").run(context -> {
            RateLimitUsage usage = context.getBean(RateLimitUsage.class);
            assertThat(usage.of("search", "ann").windows()).isEmpty();
            assertThat(usage.ofAsync("search", null, "ann")
                            .toCompletableFuture()
                            .join()
                            .windows())
                    .isEmpty();
            assertThat(usage.credit("search", "ann", 2, null)).isZero();
        });
    }
}
