package io.github.ratelimit.autoconfigure;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.annotation.RetryAdvice;
import io.github.ratelimit.core.internal.Cidr;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.local.LocalRateLimiter;
import io.github.ratelimit.spring.definition.ClientRuleSpec;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Settings of the rate limiter, under {@code ratelimit.*}. The Redis connection is {@code spring.data.redis.*}.
 * Checks its own values when bound, so that a bad value fails the start with a report naming the property; a
 * property under {@code ratelimit} that binds to nothing (a misspelt name, rules written as a map, a module's setting
 * without the module) fails it too ({@link UnknownSettingsCheck}). The integrations' own settings are in their modules:
 * {@code ratelimit.grpc} in {@code ratelimit-grpc}, {@code ratelimit.graphql} in {@code ratelimit-graphql},
 * {@code ratelimit.gateway} in {@code ratelimit-spring-cloud-gateway}.
 */
@ConfigurationProperties(prefix = "ratelimit")
public class RateLimitProperties implements Validator {

    /**
     * Whether rate limits are on. When off, @RateLimited and filter rules limit nothing and rate limits make no
     * Redis call; @SingleUse and @Locked keep working, since switching them off would make tokens reusable and
     * locked code unlocked.
     */
    private boolean enabled = true;

    /**
     * Where rate limits are counted: redis (the default; every instance shares each limit, and the ratelimit-redis
     * module, which the starter brings, must be on the class path) or memory (rate limits, tokens, locks and
     * concurrency limits of each instance alone, announced with a WARN at startup: for one instance, local
     * development and tests). Never chosen for you: an application whose Redis is down keeps store redis and its
     * failure mode.
     */
    private Store store = Store.REDIS;

    /** Where rate limits are counted. */
    public enum Store {
        /** In Redis, shared by every instance. */
        REDIS,
        /** In this instance's memory alone. */
        MEMORY
    }

    /**
     * Prefix of every Redis key the limiter writes: at most 64 letters, digits or '._:/-'. Change it to let
     * several applications share one Redis without sharing limits.
     */
    private String keyPrefix = "ratelimit:";

    /**
     * Whether every limit (annotations and filter rules) is in shadow mode: counted and reported in headers, never
     * refusing a request; would-be refusals are logged.
     */
    private boolean shadow;

    /**
     * What rate limits that do not say otherwise do when Redis cannot decide in time: local (each instance enforces
     * its share of the limit in memory, the limit divided by the number of live instances), open (calls go through
     * unchecked) or closed (calls are refused with 503). Single-use tokens and locks always answer 503.
     */
    private FailureMode failureMode = FailureMode.LOCAL;

    /** The limits each instance enforces in memory while Redis cannot decide (failure mode local). */
    private final LocalLimitSettings localLimits = new LocalLimitSettings();

    /** How calls to Redis are bounded. */
    private final Redis redis = new Redis();

    /** Trusted callers no rate limit applies to: by IP range, principal or header value. */
    private final Exempt exempt = new Exempt();

    /** What refused callers are told about when to retry. */
    private final RetryAdviceSettings retryAdvice = new RetryAdviceSettings();

    /** The RateLimit and RateLimit-Policy response fields. */
    private final Headers headers = new Headers();

    /** Refusals served in the JVM while a limit that Redis refused is still exhausted. */
    private final LocalRefusalSettings localRefusals = new LocalRefusalSettings();

    /** Plans: quotas per caller tier (free, pro, a contract), resolved on every call. */
    private final PlanSettings plans = new PlanSettings();

    public PlanSettings getPlans() {
        return plans;
    }

    public static class PlanSettings {

        /**
         * Plan groups by name, as named by @RateLimited(plans = ...) or a rule's plans: each with its plans' limits
         * and its default plan.
         */
        private Map<String, PlanGroup> groups = new LinkedHashMap<>();

        /**
         * Which plan each customer is on (a customer is the value of the plan-limited key, such as an API key), for the
         * starter's plan source; replace it with a PlanSource bean to read a database instead. Customers not listed get
         * their group's default plan.
         */
        private Map<String, String> customers = new LinkedHashMap<>();

        public Map<String, PlanGroup> getGroups() {
            return groups;
        }

        public void setGroups(Map<String, PlanGroup> groups) {
            this.groups = groups;
        }

        public Map<String, String> getCustomers() {
            return customers;
        }

        public void setCustomers(Map<String, String> customers) {
            this.customers = customers;
        }

        /** The groups as the plan resolution uses them; throws naming the property of the first invalid value. */
        public Map<String, Plans.Group> compiled() {
            Map<String, Map<String, List<FilterRuleSpec.LimitSpec>>> plans = new LinkedHashMap<>();
            Map<String, String> defaults = new LinkedHashMap<>();
            groups.forEach((name, group) -> {
                plans.put(name, group.getPlans());
                defaults.put(name, group.getDefaultPlan());
            });
            return Plans.compile(plans, defaults, "ratelimit.plans.groups");
        }

        /** Plans that compile: each group's default plan among its plans, each limit valid. */
        void validate(Errors errors) {
            try {
                compiled();
            } catch (IllegalArgumentException e) {
                errors.rejectValue("groups", "invalid", String.valueOf(e.getMessage()));
            }
        }
    }

    public static class PlanGroup {

        /** The plan of callers whose plan is unknown or missing; it must be one of the group's plans. */
        private String defaultPlan = "default";

        /** Each plan's limits, by plan name: one or several, sliding or fixed windows, all decided together. */
        private Map<String, List<FilterRuleSpec.LimitSpec>> plans = new LinkedHashMap<>();

        public String getDefaultPlan() {
            return defaultPlan;
        }

        public void setDefaultPlan(String defaultPlan) {
            this.defaultPlan = defaultPlan;
        }

        public Map<String, List<FilterRuleSpec.LimitSpec>> getPlans() {
            return plans;
        }

        public void setPlans(Map<String, List<FilterRuleSpec.LimitSpec>> plans) {
            this.plans = plans;
        }
    }

    public LocalRefusalSettings getLocalRefusals() {
        return localRefusals;
    }

    public LocalLimitSettings getLocalLimits() {
        return localLimits;
    }

    /** The limits each instance enforces in memory while Redis cannot decide (failure mode local). */
    public static class LocalLimitSettings {

        /**
         * How many instances share each limit before this instance has seen a count in Redis (while Redis answers,
         * each instance announces itself there and keeps the last count it saw).
         */
        private int instances = 1;

        /** How many (limit, identifier) pairs each instance keeps at most while it decides locally. */
        private long maxEntries = LocalRateLimiter.DEFAULT_MAX_ENTRIES;

        public int getInstances() {
            return instances;
        }

        public void setInstances(int instances) {
            this.instances = instances;
        }

        public long getMaxEntries() {
            return maxEntries;
        }

        public void setMaxEntries(long maxEntries) {
            this.maxEntries = maxEntries;
        }

        void validate(Errors errors) {
            if (instances < 1) {
                errors.rejectValue("instances", "min", Messages.atLeast(null, 1, instances));
            }
            if (maxEntries < 1) {
                errors.rejectValue("maxEntries", "min", Messages.atLeast(null, 1, maxEntries));
            }
        }
    }

    private final Durability durability = new Durability();

    /**
     * Whether writes wait for a replica's acknowledgement before they are reported: replication is asynchronous, and a
     * failover before the replica got a write would undo it. A write no replica acknowledged in time is undone and
     * answered as Redis unavailable; nothing is waited for while no master has a replica connected.
     */
    public Durability getDurability() {
        return durability;
    }

    /**
     * Whether a token's use and a lock's acquisition wait for a replica's acknowledgement ({@code WAIT}) before they
     * are reported: replication is asynchronous, and a failover before the replica got the write would undo it (a
     * used token working again, a lock granted twice). A write no replica acknowledged in time is undone and the call
     * answered as Redis unavailable. Costs nothing while no master has a replica connected (a single Redis).
     */
    public static class Durability {

        /**
         * Whether a token's use waits for a replica's acknowledgement ({@code WAIT}): without it, a failover before
         * the replica got the write could make a used token work again.
         */
        private boolean tokens = true;

        /**
         * Whether a lock's acquisition waits for a replica's acknowledgement ({@code WAIT}): without it, a failover
         * before the replica got the write could grant the lock twice.
         */
        private boolean locks = false;

        /**
         * How long to wait for the acknowledgement; shorter than ratelimit.redis.timeout. Default: half of it, in whole
         * milliseconds (so none under a 2 ms timeout).
         */
        private @Nullable Duration replicaWait;

        public boolean isTokens() {
            return tokens;
        }

        public void setTokens(boolean tokens) {
            this.tokens = tokens;
        }

        public boolean isLocks() {
            return locks;
        }

        public void setLocks(boolean locks) {
            this.locks = locks;
        }

        public @Nullable Duration getReplicaWait() {
            return replicaWait;
        }

        public void setReplicaWait(@Nullable Duration replicaWait) {
            this.replicaWait = replicaWait;
        }

        /** The wait of a primitive: zero when it does not wait, else the configured wait or half the budget. */
        public Duration waitFor(boolean enabled, Duration budget) {
            if (!enabled) {
                return Duration.ZERO;
            }
            return replicaWait != null ? replicaWait : Duration.ofMillis(budget.toMillis() / 2);
        }

        /** A replica wait of 1 ms at least, spent inside the Redis timeout and so shorter than it. */
        void validate(Errors errors, @Nullable Duration redisTimeout) {
            if (replicaWait != null
                    && (replicaWait.toMillis() < 1
                            || (redisTimeout != null && replicaWait.compareTo(redisTimeout) >= 0))) {
                errors.rejectValue(
                        "replicaWait",
                        "range",
                        "must be at least 1ms and shorter than ratelimit.redis.timeout (the wait is spent inside it)");
            }
        }
    }

    /** Refusals served in the JVM while a limit that Redis refused is still exhausted. */
    public static class LocalRefusalSettings {

        /**
         * Whether a (limit, identifier) that Redis refused is refused in the JVM, without a Redis call, until the time
         * Redis said it could admit again. Never refuses a call Redis would admit; a reset reaches every instance.
         */
        private boolean enabled = true;

        /** How many refused (limit, identifier) pairs are kept at most. */
        private long maxEntries = 100_000; // RedisRateLimiter.DEFAULT_LOCAL_REFUSALS (a test holds them equal)

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public long getMaxEntries() {
            return maxEntries;
        }

        public void setMaxEntries(long maxEntries) {
            this.maxEntries = maxEntries;
        }

        void validate(Errors errors) {
            if (maxEntries < 1) {
                errors.rejectValue("maxEntries", "min", Messages.atLeast(null, 1, maxEntries));
            }
        }
    }

    public Headers getHeaders() {
        return headers;
    }

    /** The RateLimit and RateLimit-Policy response fields. */
    public static class Headers {

        /**
         * Whether the fields carry every limit and identifier of the request instead of what a client needs (the
         * items that refused the call, else the one with the least remaining).
         */
        private boolean allPolicies;

        public boolean isAllPolicies() {
            return allPolicies;
        }

        public void setAllPolicies(boolean allPolicies) {
            this.allPolicies = allPolicies;
        }
    }

    public RetryAdviceSettings getRetryAdvice() {
        return retryAdvice;
    }

    /** What refused callers are told about when to retry (Retry-After and the RateLimit field's t). */
    public static class RetryAdviceSettings {

        /** The advice of limits that do not choose their own: earliest or staggered. */
        private RetryAdvice defaultAdvice = RetryAdvice.EARLIEST;

        /** How many windows ahead staggered advice may reach; callers beyond are told that horizon. */
        private int horizonWindows = 10; // RedisRateLimiter.DEFAULT_HORIZON_WINDOWS (a test holds them equal)

        public RetryAdvice getDefault() {
            return defaultAdvice;
        }

        public void setDefault(RetryAdvice advice) {
            this.defaultAdvice = advice;
        }

        public int getHorizonWindows() {
            return horizonWindows;
        }

        public void setHorizonWindows(int horizonWindows) {
            this.horizonWindows = horizonWindows;
        }

        /** A default that is an advice (not {@code DEFAULT}, which defers to this setting), a horizon of one window at least. */
        void validate(Errors errors) {
            if (defaultAdvice == null || defaultAdvice == RetryAdvice.DEFAULT) {
                errors.rejectValue("default", "value", "must be earliest or staggered");
            }
            if (horizonWindows < 1) {
                errors.rejectValue("horizonWindows", "min", Messages.atLeast(null, 1, horizonWindows));
            }
        }
    }

    /** The OpenAPI description, when springdoc is present. */
    private final OpenApi openapi = new OpenApi();

    public OpenApi getOpenapi() {
        return openapi;
    }

    /** What the starter adds to the application's OpenAPI description (springdoc). */
    public static class OpenApi {
        /**
         * Whether to add what the starter can answer (429, the token and lock answers, 503) and the limits
         * (x-ratelimit) to each operation.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** The actuator endpoint. */
    private final Actuator actuator = new Actuator();

    public Actuator getActuator() {
        return actuator;
    }

    /** The {@code ratelimits} actuator endpoint. */
    public static class Actuator {

        /** Whether the endpoint may reset a client's counts (a write operation); reading is always allowed. */
        private boolean resetEnabled;

        /**
         * Whether the endpoint may change what every instance enforces: block and unblock clients (write operations;
         * secure the endpoint before enabling it).
         */
        private boolean writeEnabled;

        /** The longest block an operator may set. */
        private Duration maxBlock = Duration.ofDays(1);

        public boolean isWriteEnabled() {
            return writeEnabled;
        }

        public void setWriteEnabled(boolean writeEnabled) {
            this.writeEnabled = writeEnabled;
        }

        public Duration getMaxBlock() {
            return maxBlock;
        }

        public void setMaxBlock(Duration maxBlock) {
            this.maxBlock = maxBlock;
        }

        public boolean isResetEnabled() {
            return resetEnabled;
        }

        public void setResetEnabled(boolean resetEnabled) {
            this.resetEnabled = resetEnabled;
        }

        void validate(Errors errors) {
            if (maxBlock == null || maxBlock.toMillis() < 1) {
                errors.rejectValue("maxBlock", "min", Messages.atLeast(null, "1 ms", maxBlock));
            }
        }
    }

    /** How clients are identified by address. */
    private final Client client = new Client();

    /** Limits applied to paths by a filter (servlet or WebFlux), without annotations. */
    private final Filter filter = new Filter();

    public Client getClient() {
        return client;
    }

    public FailureMode getFailureMode() {
        return failureMode;
    }

    public void setFailureMode(FailureMode failureMode) {
        this.failureMode = failureMode;
    }

    public Redis getRedis() {
        return redis;
    }

    /** How calls to Redis are bounded. */
    public static class Redis {

        /**
         * Latency budget of one decision: when Redis has not answered by then, the decision is made without it
         * (fail-open or fail-closed). Also the command timeout of the Redisson client the starter creates.
         */
        private Duration timeout = Duration.ofMillis(200);

        /** Failures in a row after which Redis is not asked for open-for, so requests do not pile up. */
        private int failureThreshold = 5;

        /** How long Redis is not asked after failure-threshold failures in a row; then one call probes it. */
        private Duration openFor = Duration.ofSeconds(1);

        /**
         * Time allowed to open a connection and for its handshake (AUTH, SELECT, CLIENT SETNAME, PING), apart from
         * the decision budget. Defaults to spring.data.redis.connect-timeout, else 3s.
         */
        private @Nullable Duration connectTimeout;

        /**
         * Whether the application refuses to start when Redis cannot be reached within connect-timeout. By default
         * it starts at once and connects in the background, answering calls with the fallback until then.
         */
        private boolean requireAtStartup;

        public @Nullable Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(@Nullable Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

        public boolean isRequireAtStartup() {
            return requireAtStartup;
        }

        public void setRequireAtStartup(boolean requireAtStartup) {
            this.requireAtStartup = requireAtStartup;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public int getFailureThreshold() {
            return failureThreshold;
        }

        public void setFailureThreshold(int failureThreshold) {
            this.failureThreshold = failureThreshold;
        }

        public Duration getOpenFor() {
            return openFor;
        }

        public void setOpenFor(Duration openFor) {
            this.openFor = openFor;
        }

        /** The connection's bounds: a timeout of 1 ms at least, a threshold of one failure at least. */
        void validate(Errors errors) {
            if (timeout == null || timeout.toMillis() < 1) {
                errors.rejectValue("timeout", "min", Messages.atLeast(null, "1 ms", timeout));
            }
            if (failureThreshold < 1) {
                errors.rejectValue("failureThreshold", "min", Messages.atLeast(null, 1, failureThreshold));
            }
            if (openFor == null || openFor.isNegative()) {
                errors.rejectValue("openFor", "min", Messages.negative(null, openFor));
            }
            if (connectTimeout != null && connectTimeout.toMillis() < 1) {
                errors.rejectValue("connectTimeout", "min", Messages.atLeast(null, "1 ms", connectTimeout));
            }
        }
    }

    public Filter getFilter() {
        return filter;
    }

    /** How clients are identified by address, for the filter and for the {@code #ip} and {@code #client} keys. */
    public static class Client {

        /**
         * Addresses or CIDR blocks of the proxies in front of the application. Only a request whose TCP peer is
         * one of them has its Forwarded or X-Forwarded-For header read (right to left, skipping these proxies);
         * empty means the TCP peer is always the client.
         */
        private List<String> trustedProxies = new ArrayList<>();

        /** How many leading bits of an IPv6 address identify one client. */
        private int ipv6PrefixLength = 64;

        /**
         * Outbound limits: rules (name, hosts, paths, methods, limits, wait, failure-mode) for the calls the
         * application's RestClient, RestTemplate and WebClient send, each rule one budget shared by every instance (see
         * docs/outbound.md).
         */
        private List<ClientRuleSpec> rules = new ArrayList<>();

        /** The longest an upstream's Retry-After (after a 429 or 503) pauses an outbound rule. */
        private Duration maxPause = Duration.ofMinutes(10);

        public List<ClientRuleSpec> getRules() {
            return rules;
        }

        public void setRules(List<ClientRuleSpec> rules) {
            this.rules = rules;
        }

        public Duration getMaxPause() {
            return maxPause;
        }

        public void setMaxPause(Duration maxPause) {
            this.maxPause = maxPause;
        }

        public List<String> getTrustedProxies() {
            return trustedProxies;
        }

        public void setTrustedProxies(List<String> trustedProxies) {
            this.trustedProxies = trustedProxies;
        }

        public int getIpv6PrefixLength() {
            return ipv6PrefixLength;
        }

        public void setIpv6PrefixLength(int ipv6PrefixLength) {
            this.ipv6PrefixLength = ipv6PrefixLength;
        }

        /** Trusted proxies that are addresses or blocks, an IPv6 prefix of 1 to 128 bits, a pause of 1 ms at least. */
        void validate(Errors errors) {
            if (ipv6PrefixLength < 1 || ipv6PrefixLength > 128) {
                errors.rejectValue("ipv6PrefixLength", "range", Messages.between(null, 1, 128, ipv6PrefixLength));
            }
            if (maxPause == null || maxPause.toMillis() < 1) {
                errors.rejectValue("maxPause", "min", Messages.atLeast(null, "1 ms", maxPause));
            }
            rejectNonAddresses(errors, "trustedProxies", trustedProxies, "trusted proxy");
        }
    }

    public Exempt getExempt() {
        return exempt;
    }

    /**
     * Trusted callers no rate limit applies to (annotations and path rules): neither limited nor counted, and given no
     * RateLimit fields.
     */
    public static class Exempt {

        /** Client addresses or CIDR blocks, as the client address is found (see ratelimit.client.trusted-proxies). */
        private List<String> ips = new ArrayList<>();

        /** Authenticated principals' names. */
        private List<String> principals = new ArrayList<>();

        /** Header names and the values that exempt a request, such as an internal API key (compared in constant time). */
        private Map<String, List<String>> headers = new java.util.LinkedHashMap<>();

        public List<String> getIps() {
            return ips;
        }

        public void setIps(List<String> ips) {
            this.ips = ips;
        }

        public List<String> getPrincipals() {
            return principals;
        }

        public void setPrincipals(List<String> principals) {
            this.principals = principals;
        }

        public Map<String, List<String>> getHeaders() {
            return headers;
        }

        public void setHeaders(Map<String, List<String>> headers) {
            this.headers = headers;
        }

        /** Addresses or blocks, and headers with a name and non-empty values. */
        void validate(Errors errors) {
            rejectNonAddresses(errors, "ips", ips, "exempt ip");
            headers.forEach((name, values) -> {
                if (name == null
                        || name.isBlank()
                        || values == null
                        || values.stream().anyMatch(v -> v == null || v.isEmpty())) {
                    errors.rejectValue("headers", "empty", "names a header '" + name + "' with an empty value");
                }
            });
        }
    }

    /** The path-rule filter (servlet or WebFlux) and its rules. */
    public static class Filter {

        /** Whether the filter applies its rules (the servlet filter is only registered when there are rules). */
        private boolean enabled = true;

        /**
         * Order of the filter among servlet filters (or WebFlux web filters). The default runs after Spring Security's filter chain
         * (-100), so that principal keys see the authenticated user.
         */
        private int order = -90;

        /** Path patterns no rule applies to, such as /actuator/**. */
        private List<String> exclude = new ArrayList<>();

        /**
         * The rules: paths, limits, key, missing-key, cost, order, shadow, per-path and fail-closed each (see the
         * README); all limits of all rules matching a request are decided in one round trip.
         */
        private List<FilterRuleSpec> rules = new ArrayList<>();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }

        public List<String> getExclude() {
            return exclude;
        }

        public void setExclude(List<String> exclude) {
            this.exclude = exclude;
        }

        public List<FilterRuleSpec> getRules() {
            return rules;
        }

        public void setRules(List<FilterRuleSpec> rules) {
            this.rules = rules;
        }

        /** The rules the filter applies (none while it is disabled) and the paths excluded from them. */
        public PathRules.Specs specs() {
            return new PathRules.Specs(enabled ? rules : List.of(), exclude);
        }
    }

    public boolean isEnabled() {
        return enabled;
    }

    public Store getStore() {
        return store;
    }

    public void setStore(Store store) {
        this.store = store;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isShadow() {
        return shadow;
    }

    public void setShadow(boolean shadow) {
        this.shadow = shadow;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    @Override
    public boolean supports(Class<?> type) {
        return RateLimitProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks the values at binding, each group its own ({@code validate} beside its settings), so that Boot's failure
     * report names the property (relative to {@code ratelimit}), the value and what it must be.
     */
    @Override
    public void validate(Object target, Errors errors) {
        RateLimitProperties p = (RateLimitProperties) target;
        if (p.keyPrefix == null || !Messages.KEY_PREFIX.matcher(p.keyPrefix).matches()) {
            errors.rejectValue("keyPrefix", "pattern", Messages.badKeyPrefix(null, p.keyPrefix));
        }
        if (p.failureMode == null || p.failureMode == FailureMode.DEFAULT) {
            errors.rejectValue("failureMode", "value", "must be local, open or closed");
        }
        nested(errors, "redis", p.redis::validate);
        nested(errors, "retryAdvice", p.retryAdvice::validate);
        nested(errors, "durability", e -> p.durability.validate(e, p.redis.getTimeout()));
        nested(errors, "localRefusals", p.localRefusals::validate);
        nested(errors, "localLimits", p.localLimits::validate);
        nested(errors, "client", p.client::validate);
        nested(errors, "actuator", p.actuator::validate);
        nested(errors, "plans", p.plans::validate);
        nested(errors, "exempt", p.exempt::validate);
    }

    /** Runs a group's checks with its values named from the group. */
    private static void nested(Errors errors, String group, java.util.function.Consumer<Errors> check) {
        errors.pushNestedPath(group);
        try {
            check.accept(errors);
        } finally {
            errors.popNestedPath();
        }
    }

    /** Rejects each entry that is not an IP address or a CIDR block, naming its index. */
    static void rejectNonAddresses(Errors errors, String field, List<String> entries, String what) {
        for (int i = 0; i < entries.size(); i++) {
            try {
                Cidr.parse(entries.get(i), what);
            } catch (IllegalArgumentException e) {
                errors.rejectValue(
                        field + "[" + i + "]",
                        "format",
                        "must be an IP address or a CIDR block such as 10.0.0.0/8 or 2001:db8::/32");
            }
        }
    }
}
