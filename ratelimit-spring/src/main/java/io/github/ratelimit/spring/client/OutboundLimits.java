package io.github.ratelimit.spring.client;

import io.github.ratelimit.annotation.Algorithm;
import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.LimitRequest;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.core.RateLimiter;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.internal.Futures;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.definition.ClientRuleSpec;
import io.github.ratelimit.spring.definition.ConcurrencySpec;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.RefreshableLimits;
import io.github.ratelimit.spring.definition.internal.RuleParts;
import io.github.ratelimit.spring.definition.internal.RuleSlots;
import java.net.URI;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The outbound limits ({@code ratelimit.client.rules}): which rules a call the application sends matches, the one
 * decision for all their limits (each rule's budget shared by every instance, one identifier per rule) and its pause,
 * and the pause itself. When an upstream answers 429 or 503 with {@code Retry-After}, every instance refuses (or
 * holds back, within the rule's wait) the rule's calls until then: the pause is a limit of the rule (a fixed window of
 * limit 1 whose calls cost 0), decided in the same script call as its other limits. The pause is logged and counted
 * by the instance that started it. Framework-free but for Spring's HTTP types; the client adapters
 * (wired by the auto-configuration) call it before and after each call.
 */
public final class OutboundLimits implements RefreshableLimits<List<ClientRuleSpec>> {

    private static final Logger log = LoggerFactory.getLogger(OutboundLimits.class);

    /** The identifier of a rule's budget: one per rule, whoever calls. */
    private static final String KIND = "outbound";

    private volatile List<Rule> rules;
    private final Supplier<RateLimitDecisions> decisions;
    private final Supplier<RateLimiter> limiter;
    private final Supplier<@Nullable ConcurrencyLimiter> slots;
    private final Duration maxPause;
    private final AtomicLong pauses = new AtomicLong();

    /** Rules without concurrency limits: a rule with one fails when a call matches it. */
    public OutboundLimits(
            List<ClientRuleSpec> specs,
            Duration maxPause,
            Supplier<RateLimitDecisions> decisions,
            Supplier<RateLimiter> limiter) {
        this(specs, maxPause, decisions, limiter, () -> null);
    }

    /** @param slots the store of the rules' concurrency limits, or a supplier of null when there is none */
    public OutboundLimits(
            List<ClientRuleSpec> specs,
            Duration maxPause,
            Supplier<RateLimitDecisions> decisions,
            Supplier<RateLimiter> limiter,
            Supplier<@Nullable ConcurrencyLimiter> slots) {
        this.rules = compile(specs);
        this.decisions = decisions;
        this.limiter = limiter;
        this.slots = slots;
        this.maxPause = maxPause;
    }

    private static List<Rule> compile(List<ClientRuleSpec> specs) {
        List<Rule> compiled = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            compiled.add(Rule.compile(specs.get(i), "ratelimit.client.rules[" + i + "]"));
        }
        return List.copyOf(compiled);
    }

    /**
     * Refreshed rules, compiled now and in force from the next call. A pause belongs to its rule's name, so a rule that
     * keeps its name keeps a pause in force. Clients built while there were no rules have no interceptor: the first
     * rule of an application that had none takes a restart.
     */
    @Override
    public Runnable prepare(List<ClientRuleSpec> specs, Plans plans) {
        List<Rule> refreshed = compile(specs);
        return () -> rules = refreshed;
    }

    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** Pauses started by this instance. */
    public long pauses() {
        return pauses.get();
    }

    /** What a call asks of the rules it matches: null when it matches none. */
    @Nullable
    Match match(String method, URI uri) {
        List<Rule> matched = null;
        for (Rule rule : rules) {
            if (rule.matches(method, uri)) {
                if (matched == null) {
                    matched = new ArrayList<>(1);
                }
                matched.add(rule);
            }
        }
        if (matched == null) {
            return null;
        }
        List<LimitRequest> requests = new ArrayList<>();
        List<RuleSlots.Limit> concurrency = new ArrayList<>(0);
        Set<FailureMode> modes = EnumSet.noneOf(FailureMode.class);
        Duration wait = Duration.ZERO;
        List<String> names = new ArrayList<>(matched.size());
        for (Rule rule : matched) {
            for (RateLimit limit : rule.limits) {
                requests.add(LimitRequest.of(limit, rule.identifier, 1));
            }
            requests.add(LimitRequest.of(rule.pause, rule.identifier, 0));
            if (rule.concurrency != null) {
                concurrency.add(rule.concurrency);
            }
            modes.add(rule.failureMode);
            wait = rule.maxWait.compareTo(wait) > 0 ? rule.maxWait : wait;
            names.add(rule.name);
        }
        return new Match(matched, requests, List.copyOf(concurrency), modes, wait, "outbound rules " + names);
    }

    /** Takes the slots of the matched rules' concurrency limits; a refusal is thrown, and the call is not sent. */
    RuleSlots.Held take(Match match) {
        return RuleSlots.take(match.concurrency(), match.concurrency().isEmpty() ? null : slots.get());
    }

    /** The same without blocking the calling thread. */
    CompletionStage<RuleSlots.Held> takeAsync(Match match) {
        return RuleSlots.takeAsync(match.concurrency(), match.concurrency().isEmpty() ? null : slots.get());
    }

    /** What a call asks of the budgets of the rules it matches, waiting as they allow; nobody's call, no caller. */
    CallRunner.Start start(Match match) {
        return new CallRunner.Start(
                decisions.get(), CallerContext.NONE, nobody -> match.call(), RateLimitDecisions.After.DEFAULT);
    }

    /**
     * A call to {@code uri} as the rules see it, for a client of another protocol than HTTP (gRPC: {@code POST} and
     * {@code grpc://authority/package.Service/Method}); null when it matches no rule.
     */
    public @Nullable Matched matched(String method, URI uri) {
        Match match = match(method, uri);
        return match == null ? null : new Matched(match);
    }

    /** A call some rules match: what it asks of their budgets, and what the upstream's answer does to them. */
    public final class Matched {

        private final Match match;

        private Matched(Match match) {
            this.match = match;
        }

        /** What the call asks of the matched rules' budgets, waiting as they allow; for {@link CallRunner}. */
        public CallRunner.Start start() {
            return OutboundLimits.this.start(match);
        }

        /**
         * Takes the slots of the matched rules' concurrency limits, without blocking, once the call was admitted by
         * their limits; the stage fails with {@code ConcurrencyLimitExceededException} when one is refused (the call
         * must not be sent: the slots taken are back).
         */
        public CompletionStage<Slots> slots() {
            return takeAsync(match).thenApply(Slots::new);
        }

        /**
         * The upstream asked the client to wait ({@code answer} names its answer for the log): pauses the matched
         * rules on every instance until then (at most {@code ratelimit.client.max-pause}). Never fails.
         */
        public CompletionStage<Void> pushedBack(String answer, Duration pause) {
            return pause(match, answer, pause);
        }
    }

    /** The slots one call of another protocol holds, given back once when it ends. */
    public static final class Slots {

        private final RuleSlots.Held held;

        Slots(RuleSlots.Held held) {
            this.held = held;
        }

        /** The call ended: {@code dropped} when the upstream refused, failed or timed out, else completed. */
        public void ended(boolean dropped) {
            held.end(dropped);
        }
    }

    /**
     * The upstream answered: after a 429 or 503 with a valid {@code Retry-After}, pauses the matched rules until then
     * (at most {@code ratelimit.client.max-pause}). Never fails: a pause Redis cannot take is logged.
     */
    CompletionStage<Void> answered(Match match, int status, HttpHeaders headers) {
        if (status != 429 && status != 503) {
            return CompletableFuture.completedFuture(null);
        }
        Duration pause = retryAfter(headers.getFirst(HttpHeaders.RETRY_AFTER), headers.getFirst(HttpHeaders.DATE));
        if (pause == null) {
            return CompletableFuture.completedFuture(null);
        }
        return pause(match, Integer.toString(status), pause);
    }

    private CompletionStage<Void> pause(Match match, String status, Duration pause) {
        if (pause.isNegative() || pause.isZero()) {
            return CompletableFuture.completedFuture(null);
        }
        Duration until = pause.compareTo(maxPause) > 0 ? maxPause : pause;
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (Rule rule : match.rules()) {
            CompletionStage<Boolean> paused;
            try {
                paused = limiter.get().pauseAsync(rule.pause, rule.identifier, until);
            } catch (RuntimeException e) {
                paused = CompletableFuture.failedFuture(e);
            }
            all.add(paused.handle((started, error) -> {
                        if (error != null) {
                            log.warn(
                                    "Outbound rule '{}': the upstream answered {}, but the pause of {} ms could not be"
                                            + " stored: {}",
                                    rule.name,
                                    status,
                                    until.toMillis(),
                                    Futures.cause(error).getMessage());
                        } else if (started) {
                            pauses.incrementAndGet();
                            log.warn(
                                    "Outbound rule '{}' paused for {} ms on every instance: the upstream answered {}"
                                            + " and asked to wait",
                                    rule.name,
                                    until.toMillis(),
                                    status);
                        }
                        return null;
                    })
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /**
     * How long {@code Retry-After} says to wait: delay-seconds, or an HTTP date measured from the answer's
     * {@code Date} (the upstream's own clock), else from now. Null when absent, malformed, or not in the future.
     */
    static @Nullable Duration retryAfter(@Nullable String value, @Nullable String date) {
        if (value == null) {
            return null;
        }
        String text = value.trim();
        if (text.matches("\\d{1,9}")) {
            long seconds = Long.parseLong(text);
            return seconds == 0 ? null : Duration.ofSeconds(seconds);
        }
        try {
            ZonedDateTime at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
            ZonedDateTime from = date == null
                    ? ZonedDateTime.now(at.getZone())
                    : ZonedDateTime.parse(date.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
            Duration wait = Duration.between(from, at);
            return wait.isNegative() || wait.isZero() ? null : wait;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * What one call asks of the rules it matches.
     *
     * @param rules the matching rules
     * @param requests their limits and pauses, as one decision
     * @param concurrency their concurrency limits, whose slots are taken once the decision admitted the call
     * @param modes what the rules do when Redis cannot decide
     * @param maxWait how long a refused call waits: the longest any rule allows
     * @param what the rules, for the fallback log
     */
    record Match(
            List<Rule> rules,
            List<LimitRequest> requests,
            List<RuleSlots.Limit> concurrency,
            Set<FailureMode> modes,
            Duration maxWait,
            String what) {

        /** What the call asks of the decision flow: no caller of ours is exempt from a budget of the upstream's. */
        RateLimitDecisions.Call call() {
            return new RateLimitDecisions.Call(what, requests, modes, maxWait);
        }
    }

    /** One compiled rule. */
    static final class Rule {

        final String name;
        final List<String> hosts;
        final List<PathPattern> paths;
        final Set<String> methods;
        final List<RateLimit> limits;
        final RateLimit pause;
        final ClientIdentifier identifier;
        final Duration maxWait;
        final FailureMode failureMode;
        final RuleSlots.@Nullable Limit concurrency;

        private Rule(
                String name,
                List<String> hosts,
                List<PathPattern> paths,
                Set<String> methods,
                List<RateLimit> limits,
                Duration maxWait,
                FailureMode failureMode,
                @Nullable ConcurrencySpec concurrency,
                String prefix) {
            this.name = name;
            this.hosts = hosts;
            this.paths = paths;
            this.methods = methods;
            this.limits = limits;
            this.pause = RateLimit.of(name + ".pause", Algorithm.FIXED_WINDOW, 1, 1_000);
            this.identifier = ClientIdentifier.of(KIND, name);
            this.maxWait = maxWait;
            this.failureMode = failureMode;
            this.concurrency = concurrency == null
                    ? null
                    : RuleSlots.Limit.compile(concurrency, name, identifier, failureMode, prefix);
        }

        static Rule compile(ClientRuleSpec spec, String prefix) {
            String name = spec.name() == null ? "" : spec.name().trim();
            if (name.isEmpty()) {
                throw new InvalidFilterRuleException(prefix + ".name", "must be given (the budget's name)");
            }
            if (!Messages.isName(name)) {
                throw new InvalidFilterRuleException(prefix + ".name", Messages.badName(null, name));
            }
            List<String> hosts = new ArrayList<>();
            List<String> givenHosts = spec.hosts() == null ? List.of() : spec.hosts();
            for (int i = 0; i < givenHosts.size(); i++) {
                String host = givenHosts.get(i) == null
                        ? ""
                        : givenHosts.get(i).trim().toLowerCase(Locale.ROOT);
                if (!host.matches("(\\*\\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?|\\[[0-9a-f:.]+]")) {
                    throw new InvalidFilterRuleException(
                            prefix + ".hosts[" + i + "]",
                            "must be a host name such as api.example.com or *.example.com, but was '"
                                    + givenHosts.get(i) + "'");
                }
                hosts.add(host);
            }
            List<PathPattern> paths =
                    RuleParts.patterns(spec.paths() == null ? List.of() : spec.paths(), prefix + ".paths");
            Set<String> methods = new java.util.HashSet<>();
            for (String method : spec.methods() == null ? List.<String>of() : spec.methods()) {
                methods.add(method.trim().toUpperCase(Locale.ROOT));
            }
            List<FilterRuleSpec.LimitSpec> given = spec.limits() == null ? List.of() : spec.limits();
            if (given.isEmpty() && spec.concurrency() == null) {
                throw new InvalidFilterRuleException(
                        prefix + ".limits", "must list at least one limit, unless the rule has a concurrency limit");
            }
            List<RateLimit> limits = new ArrayList<>();
            for (int i = 0; i < given.size(); i++) {
                limits.add(RuleParts.limit(given.get(i), name, prefix + ".limits[" + i + "]"));
            }
            Duration wait = spec.maxWait() == null ? Duration.ZERO : spec.maxWait();
            if (wait.isNegative()) {
                throw new InvalidFilterRuleException(prefix + ".wait", "must not be negative, but was " + wait);
            }
            return new Rule(
                    name,
                    List.copyOf(hosts),
                    paths,
                    Set.copyOf(methods),
                    List.copyOf(limits),
                    wait,
                    spec.failureMode() == null ? FailureMode.DEFAULT : spec.failureMode(),
                    spec.concurrency(),
                    prefix);
        }

        boolean matches(String method, URI uri) {
            if (!methods.isEmpty() && !methods.contains(method)) {
                return false;
            }
            if (!hosts.isEmpty()) {
                String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
                boolean any = false;
                for (String pattern : hosts) {
                    any |= pattern.startsWith("*.") ? host.endsWith(pattern.substring(1)) : host.equals(pattern);
                }
                if (!any) {
                    return false;
                }
            }
            if (paths.isEmpty()) {
                return true;
            }
            PathContainer path = PathContainer.parsePath(uri.getRawPath() == null ? "/" : uri.getRawPath());
            for (PathPattern pattern : paths) {
                if (pattern.matches(path)) {
                    return true;
                }
            }
            return false;
        }
    }
}
