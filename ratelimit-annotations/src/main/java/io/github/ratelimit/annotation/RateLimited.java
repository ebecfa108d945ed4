package io.github.ratelimit.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits how often a method may be called, across every instance of the application sharing one Redis.
 *
 * <p>Repeat the annotation for several limits, for example 10 per second, 120 per minute and 240 per hour.
 * All limits and all identifiers of one call are decided in one Redis script call, all or nothing: the call
 * runs only if every limit has room, and a rejected call consumes nothing from any of them.
 *
 * <pre>{@code
 * @RateLimited(limit = 10, windowMs = 1_000, key = {"#ip", "#userId ?: {}"})
 * @RateLimited(limit = 120, windowMs = 60_000, key = {"#ip", "#userId ?: {}"})
 * public Result search(String q, @RequestHeader(required = false) String userId) { ... }
 * }</pre>
 *
 * <p>When a limit is exceeded the method is not called and {@code RateLimitExceededException} is thrown
 * (for a method returning {@code CompletionStage}, a future failed with it is returned). In a Spring MVC
 * application the starter answers it with HTTP 429.
 *
 * <p>On a class, the limits apply to each of its public methods that has no {@code @RateLimited} of its own (a method's
 * own limits replace the class's; {@link NotRateLimited} exempts a method), each method with a budget of its own
 * unless {@link #name()} gives one. As a meta-annotation it makes a composed annotation: {@code @ApiLimit} carrying
 * {@code @RateLimited(limit = 100, windowMs = 60_000)} once, written on methods or classes.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(RateLimits.class)
public @interface RateLimited {

    /**
     * How many units (calls, when {@link #cost()} is 1) are admitted per window. At least 1; leave it out when
     * {@link #plans()} gives the limits.
     */
    int limit() default 0;

    /**
     * The window in milliseconds. At least 1; leave it out when {@link #plans()} gives the limits or {@link #period()}
     * a calendar period.
     */
    long windowMs() default 0;

    /**
     * A calendar period instead of a window: {@code "day"}, {@code "week"} (ISO, from Monday) or {@code "month"},
     * starting at midnight in {@link #zone()}: a quota such as 1,000 calls a month, counted as a fixed number per period
     * (the algorithm is a fixed window whatever {@link #algorithm()} says, unless it says {@code TOKEN_BUCKET}, which
     * is an error). Which period a call falls in is told by the Redis server's clock; refused callers are told the time
     * left to the period's end. Empty (the default): {@link #windowMs()} gives the window.
     */
    String period() default "";

    /** The time zone of {@link #period()}, such as {@code "Europe/Berlin"}; UTC by default. */
    String zone() default "";

    /**
     * A penalty in milliseconds: once this limit refuses a caller, every call of that caller is refused by it for this
     * long, on every instance (told the time left), and then counted afresh. With {@link CountOn#FAILURE}, a
     * brute-force lockout: 5 failed logins in a minute, then 15 minutes refused. 0 (the default): none.
     */
    long penaltyMs() default 0;

    /**
     * The share of the budget that calls of this limit may use, above 0 and at most 1 (the default): limits of the same
     * {@link #name()} and key share one budget of {@link #limit()} units, and a call is admitted only while the shared
     * count stays within its own ceiling ({@code limit} times {@code share}, rounded down). Non-critical endpoints with
     * {@code share = 0.8} are refused first, and critical ones ({@code share = 1.0}) keep the last 20 %. The RateLimit
     * fields describe the caller's own ceiling. A sliding window with a share must be its name's only window.
     */
    double share() default 1.0;

    /**
     * Leases this limit, for one limit of the whole fleet that one Redis key could not decide fast enough (a public
     * API's total, an upstream's quota): each instance takes permits from Redis in leases (one script call each, sized
     * to its own recent rate), decides calls from its lease in the JVM, and asks again when it is spent. The value is
     * the most one lease holds, as a share of {@link #limit()}: above 0 and at most 1, such as 0.1. A window (of the
     * Redis server's clock) never admits more than the limit, whatever instances die or lose Redis; it may admit less,
     * by what leases hold unused at its end (at most this share of the limit per instance). Only with
     * {@code algorithm = FIXED_WINDOW}, without a plan, period, penalty, share, charge or {@code countOn = FAILURE}.
     * 0 (the default): decided in Redis on every call.
     */
    double lease() default 0;

    /**
     * A plan group of {@code ratelimit.plans.groups} whose limits apply instead of {@link #limit()} and
     * {@link #windowMs()}: the caller's plan's (free, pro, a contract), resolved on every call. The customer is the
     * value of the one {@link #key()}, such as an API key; its plan comes from {@link #plan()}, else from the
     * application's {@code PlanSource} (by default {@code ratelimit.plans.customers}), else the group's default plan.
     * The limit's name is the group's.
     */
    String plans() default "";

    /**
     * A SpEL expression for the caller's plan in the {@link #plans()} group, over the same variables as the keys (for
     * example a claim of the principal); null to ask the {@code PlanSource}. Empty by default. Never name a header the
     * client controls unless it is meant to choose its own plan.
     */
    String plan() default "";

    /**
     * Who is limited: SpEL expressions, each naming one identifier that gets its own count. The default,
     * {@code #client}, is the authenticated principal's name, else the client IP address.
     *
     * <p>Variables: the method's parameters by name ({@code #userId}, also {@code #p0}/{@code #a0}),
     * {@code #request} (the current {@code HttpServletRequest}, or null outside a web request),
     * {@code #principal} (its name, or null), {@code #ip} (the client address, or null), {@code #client},
     * {@code #method} and {@code #args}.
     *
     * <p>An expression must not evaluate to null or to an empty string: that is an error, never a bucket
     * shared by everyone. An expression may evaluate to a collection or array, each element being one
     * identifier; an empty one means "no identifier here", so {@code "#userId ?: {}"} limits the user id only
     * when there is one. At least one identifier must remain.
     */
    String[] key() default "#client";

    /**
     * The algorithm; {@link Algorithm#SLIDING_WINDOW} by default.
     */
    Algorithm algorithm() default Algorithm.SLIDING_WINDOW;

    /**
     * How many units this call takes: a SpEL expression evaluating to a whole number between 0 and
     * {@link #limit()}, for example the complexity of a query. Default 1.
     */
    String cost() default "1";

    /**
     * Groups methods into one shared limit: every method whose annotation has the same name counts against
     * the same budget, and all must declare the same limits. Letters, digits and {@code . _ - : /}, at most
     * 100 characters. Default: the declaring class's simple name and the method name, such as
     * {@code HelloController.hello}.
     */
    String name() default "";

    /**
     * Shadow mode: the limit is counted and reported in the RateLimit headers, but never refuses a call; each
     * call it would have refused is logged. For rolling out a limit safely. {@code ratelimit.shadow=true} puts
     * every limit in shadow mode.
     */
    boolean shadow() default false;

    /**
     * What happens when Redis cannot decide in time (down, slow, out of memory): by default the application-wide
     * {@code ratelimit.failure-mode}, which is {@link FailureMode#LOCAL} (each instance enforces its share of the
     * limit in memory) unless set; {@link FailureMode#OPEN} lets the call through unchecked, {@link FailureMode#CLOSED}
     * refuses it with {@code RedisUnavailableException} (HTTP 503). A call with limits of several modes takes the
     * strictest: closed, then local, then open.
     */
    FailureMode failureMode() default FailureMode.DEFAULT;

    /**
     * What a refused caller is told about when to retry: {@link RetryAdvice#EARLIEST} (every caller refused at
     * once is told the same, earliest time) or {@link RetryAdvice#STAGGERED} (callers are given slots spread one
     * {@code windowMs / limit} apart, so that they do not come back all at once). By default the application-wide
     * {@code ratelimit.retry-advice.default}.
     */
    RetryAdvice retryAdvice() default RetryAdvice.DEFAULT;

    /**
     * How long a refused call may wait for room, in milliseconds, before it is refused: it waits until the time Redis
     * says it could be admitted (staggered, so that callers refused together, on every instance, come back one slot
     * apart) and asks again, as long as that time falls before the end of the wait; a call that could not be admitted
     * in time is refused at once. 0 (the default) refuses at once. On a blocking stack the calling thread waits; a
     * method returning {@code Mono}, {@code Flux} or {@code CompletionStage} waits on a timer. A call with several
     * limits waits as long as the longest of them allows.
     */
    long waitMs() default 0;

    /**
     * What a call costs, known only once it ran (the tokens a model's answer used, the rows an export wrote): a SpEL
     * expression over the method's result {@code #result} (the value of a {@code Mono} or {@code CompletionStage}) and
     * the same variables as {@link #key()}, giving a whole number of at least 0, such as {@code "#result.tokens"}. A
     * call is admitted while the budget has anything left (one unit, checked without taking); once it returned, what
     * the expression gives is charged to every identifier of the call, atomically, even past zero, and later calls are
     * refused (or wait, see {@link #waitMs()}) until the budget has recovered. What past zero means depends on the
     * {@link #algorithm()}: a sliding window refuses while the last window's true count is at its limit, a fixed window
     * until it ends, a token bucket until it has refilled what it owes. Empty (the default): the call takes
     * {@link #cost()} before it runs. Not with {@link #cost()}, with {@link CountOn#FAILURE}, nor on a method returning
     * {@code Flux}.
     */
    String charge() default "";

    /**
     * Whether a call that failed (threw, or its {@code Mono} or {@code CompletionStage} failed) is charged too, its
     * {@code #result} being null: {@code charge = "#result?.tokens ?: 100"}. By default a failed call is not charged.
     */
    boolean chargeFailures() default false;

    /**
     * A method of the same bean to call instead of refusing (the Resilience4j convention): same parameters, optionally
     * followed by a {@code RateLimitExceededException} parameter, and a return type the limited method can return;
     * its result is returned to the caller. A wrong name or signature fails the start. For a method returning
     * {@code Mono}, {@code Flux} or {@code CompletionStage}, the fallback returns the same type. Only refusals of this
     * method's limits are answered by it; when Redis cannot decide, the fail policy applies as usual.
     */
    String fallback() default "";

    /**
     * Which calls are counted: every call ({@link CountOn#CALL}, the default), or only those that fail
     * ({@link CountOn#FAILURE}: the method threw, or answered an HTTP status of 400 or more), as for login attempts. A
     * call is refused when the budget is already used up; with {@code FAILURE} it is counted after it failed, so
     * several failures in progress at once may each be counted (see the README).
     */
    CountOn countOn() default CountOn.CALL;
}
