package io.github.ratelimit.spring.aop;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter;
import io.github.ratelimit.core.concurrency.AdaptiveConcurrencyLimiter.AdaptivePermit;
import io.github.ratelimit.core.concurrency.AdaptiveSettings;
import io.github.ratelimit.core.concurrency.ConcurrencyLimiter;
import io.github.ratelimit.core.internal.Messages;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.internal.AnnotatedMethods;
import io.github.ratelimit.spring.internal.KeyExpression;
import io.github.ratelimit.spring.internal.MethodDeclarations;
import io.github.ratelimit.spring.internal.MethodExpressions;
import io.github.ratelimit.spring.internal.invocation.DeferredInvocation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Applies {@code @ConcurrencyLimited} to Spring beans: a slot is taken when the call starts (for a publisher, when it
 * is subscribed) and given back once when it ends, also on an exception or a cancellation. Runs after
 * {@code @RateLimited} (a call refused by a rate limit takes no slot) and before {@code @Locked}. An adaptive limit's
 * slot is given back with the call's outcome: completed (its latency a sample), or dropped when the method threw, its
 * publisher failed or was cancelled; a call that never started gives its slot back without a sample.
 */
public final class ConcurrencyLimitedAdvisor extends AnnotationAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Declarations declarations;
    private final transient ObjectProvider<ConcurrencyLimiter> limiter;

    /**
     * @param limiter takes and gives back the slots; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     * @param keys the kinds of key annotations may name; the built-in ones when absent
     */
    public ConcurrencyLimitedAdvisor(
            ObjectProvider<ConcurrencyLimiter> limiter,
            ObjectProvider<CallerContext> caller,
            ObjectProvider<KeyResolvers> keys) {
        this(new Declarations(() -> keys.getIfAvailable(() -> KeyResolvers.BUILT_IN)), limiter, caller);
    }

    private ConcurrencyLimitedAdvisor(
            Declarations declarations,
            ObjectProvider<ConcurrencyLimiter> limiter,
            ObjectProvider<CallerContext> caller) {
        super(new Interceptor(declarations, limiter, caller), Ordered.HIGHEST_PRECEDENCE + 250);
        this.declarations = declarations;
        this.limiter = limiter;
    }

    @Override
    public String annotation() {
        return "ConcurrencyLimited";
    }

    @Override
    public boolean declares(Method method) {
        return AnnotatedMethods.isConcurrencyLimited(method);
    }

    @Override
    public void validate(Method method) {
        requireStore(limiter, "ConcurrencyLimiter", "ConcurrencyLimited", method);
        Declaration declaration = declarations.get(method);
        if (declaration.adaptive() != null && !(limiter.getObject() instanceof AdaptiveConcurrencyLimiter)) {
            throw declaration
                    .expressions()
                    .invalid("adaptive = true needs a ConcurrencyLimiter that is also an AdaptiveConcurrencyLimiter"
                            + " (the Redis and memory stores are), but the one in the context is "
                            + limiter.getObject().getClass().getName());
        }
    }

    /** The names of the limits compiled so far (every annotated method's, once the startup check ran). */
    Set<String> names() {
        return declarations.names();
    }

    /** The adaptive limits compiled so far, by name: the first method's where several share one. */
    Map<String, MethodDeclarations.AdaptiveLimit> adaptiveLimits() {
        return declarations.adaptiveLimits();
    }

    /** The method's compiled concurrency limit, or null when it has none. */
    @Nullable
    Declaration declaration(Method method) {
        return declares(method) ? declarations.get(method) : null;
    }

    /** One compiled declaration; {@code adaptive} null for a fixed limit of {@code max}. */
    record Declaration(
            MethodExpressions expressions,
            String name,
            KeyExpression key,
            int max,
            Duration lease,
            Duration lifetime,
            @Nullable AdaptiveSettings adaptive) {}

    /** Compiles and caches the declarations, checked at startup. */
    static final class Declarations {
        private final Map<Method, Declaration> compiled = new ConcurrentHashMap<>();
        private final Supplier<KeyResolvers> keys;

        Declarations(Supplier<KeyResolvers> keys) {
            this.keys = keys;
        }

        Set<String> names() {
            return compiled.values().stream()
                    .map(Declaration::name)
                    .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
        }

        Map<String, MethodDeclarations.AdaptiveLimit> adaptiveLimits() {
            Map<String, MethodDeclarations.AdaptiveLimit> adaptive = new java.util.TreeMap<>();
            for (Declaration declaration : compiled.values()) {
                AdaptiveSettings settings = declaration.adaptive();
                if (settings != null) {
                    KeyExpression key = declaration.key();
                    adaptive.putIfAbsent(
                            declaration.name(),
                            new MethodDeclarations.AdaptiveLimit(
                                    declaration.name(), settings, key.text(), key.kind(), key.constant()));
                }
            }
            return adaptive;
        }

        Declaration get(Method method) {
            Declaration found = compiled.get(method);
            return found != null ? found : compiled.computeIfAbsent(method, this::compile);
        }

        private Declaration compile(Method method) {
            MethodExpressions expressions = new MethodExpressions(method, "ConcurrencyLimited");
            ConcurrencyLimited annotation =
                    AnnotatedElementUtils.findMergedAnnotation(method, ConcurrencyLimited.class);
            if (annotation == null) {
                throw expressions.invalid("no @ConcurrencyLimited annotation");
            }
            String name = annotation.name().isEmpty() ? RateLimitedMethods.defaultName(method) : annotation.name();
            if (!Messages.isName(name)) {
                throw expressions.invalid(Messages.badName("name", name));
            }
            if (annotation.max() < 1) {
                throw expressions.invalid(Messages.atLeast("max", 1, annotation.max()));
            }
            if (annotation.leaseMs() < 100) {
                throw expressions.invalid(Messages.atLeast("leaseMs", 100, annotation.leaseMs()));
            }
            if (annotation.maxLifetimeMs() < annotation.leaseMs()) {
                throw expressions.invalid(
                        Messages.lifetimeBelowLease(annotation.leaseMs(), annotation.maxLifetimeMs()));
            }
            return new Declaration(
                    expressions,
                    name,
                    KeyExpression.of("Concurrency limit", annotation.key(), expressions, keys.get()),
                    annotation.max(),
                    Duration.ofMillis(annotation.leaseMs()),
                    Duration.ofMillis(annotation.maxLifetimeMs()),
                    adaptive(annotation, expressions));
        }

        /** An adaptive limit's settings, checked; null for a fixed one, which may set none of them. */
        private static @Nullable AdaptiveSettings adaptive(
                ConcurrencyLimited annotation, MethodExpressions expressions) {
            if (!annotation.adaptive()) {
                if (annotation.min() != 1
                        || annotation.initial() != 0
                        || annotation.tolerance() != AdaptiveSettings.DEFAULT_TOLERANCE
                        || annotation.windowMs() != AdaptiveSettings.DEFAULT_WINDOW.toMillis()) {
                    throw expressions.invalid("min, initial, tolerance and windowMs apply to an adaptive limit only;"
                            + " set adaptive = true, or remove them for a fixed limit of max " + annotation.max());
                }
                return null;
            }
            try {
                return new AdaptiveSettings(
                        annotation.min(),
                        annotation.max(),
                        annotation.initial() == 0 ? annotation.min() : annotation.initial(),
                        annotation.tolerance(),
                        Duration.ofMillis(annotation.windowMs()));
            } catch (IllegalArgumentException e) {
                throw expressions.invalid("adaptive limit: " + e.getMessage());
            }
        }
    }

    /** Takes the slot, runs the method, gives the slot back; in the shape of the method's return type. */
    private static final class Interceptor implements MethodInterceptor {

        private final Declarations declarations;
        private final ObjectProvider<ConcurrencyLimiter> limiter;
        private final ObjectProvider<CallerContext> caller;

        Interceptor(
                Declarations declarations,
                ObjectProvider<ConcurrencyLimiter> limiter,
                ObjectProvider<CallerContext> caller) {
            this.declarations = declarations;
            this.limiter = limiter;
            this.caller = caller;
        }

        @Override
        public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
            Method method = AnnotationAdvisor.targetMethod(invocation);
            Declaration declaration = declarations.get(method);
            if (declaration.adaptive() != null) {
                return invokeAdaptive(invocation, method, declaration, declaration.adaptive());
            }
            Object deferred = DeferredInvocation.deferredOrNull(
                    invocation,
                    method,
                    "@ConcurrencyLimited",
                    () -> caller.getIfAvailable(() -> CallerContext.NONE),
                    () -> new DeferredInvocation.Step<ConcurrencyLimiter.Permit>() {
                        @Override
                        public CompletionStage<ConcurrencyLimiter.Permit> start(CallerContext context) {
                            return limiter.getObject()
                                    .tryAcquireAsync(
                                            declaration.name(),
                                            identifier(declaration, invocation, context),
                                            declaration.max(),
                                            declaration.lease(),
                                            declaration.lifetime());
                        }

                        @Override
                        public CompletionStage<?> finish(ConcurrencyLimiter.Permit permit, DeferredInvocation.End end) {
                            return permit.releaseAsync();
                        }
                    });
            if (deferred != null) {
                return deferred;
            }
            try (ConcurrencyLimiter.Permit permit = limiter.getObject()
                    .tryAcquire(
                            declaration.name(),
                            identifier(declaration, invocation, caller.getIfAvailable(() -> CallerContext.NONE)),
                            declaration.max(),
                            declaration.lease(),
                            declaration.lifetime())) {
                return invocation.proceed();
            }
        }

        /** The same for an adaptive limit: the slot is given back with the call's outcome. */
        private @Nullable Object invokeAdaptive(
                MethodInvocation invocation, Method method, Declaration declaration, AdaptiveSettings settings)
                throws Throwable {
            AdaptiveConcurrencyLimiter adaptive = (AdaptiveConcurrencyLimiter) limiter.getObject();
            Object deferred = DeferredInvocation.deferredOrNull(
                    invocation,
                    method,
                    "@ConcurrencyLimited",
                    () -> caller.getIfAvailable(() -> CallerContext.NONE),
                    () -> new DeferredInvocation.Step<AdaptivePermit>() {
                        @Override
                        public CompletionStage<AdaptivePermit> start(CallerContext context) {
                            return adaptive.tryAcquireAsync(
                                    declaration.name(),
                                    identifier(declaration, invocation, context),
                                    settings,
                                    declaration.lease(),
                                    declaration.lifetime());
                        }

                        @Override
                        public CompletionStage<?> finish(AdaptivePermit permit, DeferredInvocation.End end) {
                            return switch (end) {
                                case COMPLETED -> permit.releaseAsync();
                                case NOT_STARTED -> permit.giveBackAsync();
                                default -> permit.dropAsync(); // failed, or cancelled as a timeout would
                            };
                        }
                    });
            if (deferred != null) {
                return deferred;
            }
            AdaptivePermit permit = adaptive.tryAcquire(
                    declaration.name(),
                    identifier(declaration, invocation, caller.getIfAvailable(() -> CallerContext.NONE)),
                    settings,
                    declaration.lease(),
                    declaration.lifetime());
            Object result;
            try {
                result = invocation.proceed();
            } catch (Throwable e) {
                permit.drop();
                throw e;
            }
            permit.release();
            return result;
        }

        private static ClientIdentifier identifier(
                Declaration declaration, MethodInvocation invocation, CallerContext context) {
            MethodExpressions expressions = declaration.expressions();
            return declaration
                    .key()
                    .identifier(
                            expressions.context(invocation.getThis(), invocation.getArguments(), context),
                            context,
                            expressions.source());
        }
    }
}
