package io.github.ratelimit.spring.internal.invocation;

import io.github.ratelimit.core.CallerContext;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;
import org.springframework.util.ConcurrentReferenceHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * How an intercepted method's return type runs after a step that asks Redis, one strategy per shape: a plain value
 * ({@link PlainShape}), {@code Mono} ({@link MonoShape}, a Kotlin {@code suspend fun} too), {@code Flux}
 * ({@link FluxShape}, a Kotlin {@code suspend fun} returning a {@code Flow} too), {@code CompletionStage}
 * ({@link StageShape}), and any other type Spring's {@code ReactiveAdapterRegistry} adapts ({@link AdaptedShape}: a
 * Kotlin {@code Flow} or {@code Deferred}, RxJava's types where present, a plain {@code Publisher}).
 */
public abstract sealed class ReturnShape permits PlainShape, MonoShape, FluxShape, StageShape, AdaptedShape {

    private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

    /** Each method's shape, found once (reading Kotlin's metadata takes reflection). */
    private static final Map<Method, ReturnShape> SHAPES = new ConcurrentReferenceHashMap<>();

    /** Asynchronous types the registry does not adapt here: a limit, lock or slot cannot follow them. */
    private static final List<String> UNADAPTED = List.of(
            "java.util.concurrent.Future", "kotlinx.coroutines.", "io.reactivex.", "rx.", "io.smallrye.mutiny.");

    ReturnShape() {}

    /**
     * The shape of what a method returns, as the proxy sees it: a Kotlin {@code suspend fun} is called as a {@code
     * Mono} (a {@code Flux} when it returns a {@code Flow}), as Spring's AOP invokes it; a type the adapter registry
     * knows is run through it.
     *
     * @throws IllegalArgumentException naming the type, for an asynchronous type nothing here can follow
     */
    public static ReturnShape of(Method method) {
        ReturnShape known = SHAPES.get(method);
        if (known == null) {
            known = find(method);
            SHAPES.put(method, known);
        }
        return known;
    }

    /** Whether the method runs after the step without blocking (every shape but a plain value). */
    public boolean deferred() {
        return true;
    }

    /** Runs the invocation after the step, in this shape. */
    abstract <R> Object defer(
            MethodInvocation invocation, Supplier<CallerContext> callerOutsideReactor, DeferredInvocation.Step<R> step);

    /**
     * The method's result, in this shape, with the refusals {@code ours} accepts answered by what {@code fallback}
     * gives for them (a value of this shape), when the result is used.
     */
    public abstract Object recover(
            Object result, Predicate<Throwable> ours, Function<Throwable, @Nullable Object> fallback);

    private static ReturnShape find(Method method) {
        if (KotlinDetector.isSuspendingFunction(method)) {
            warmUpCoroutines(method.getDeclaringClass().getClassLoader());
            return KOTLIN_FLOW.equals(
                            new MethodParameter(method, -1).getParameterType().getName())
                    ? FluxShape.INSTANCE
                    : MonoShape.INSTANCE;
        }
        Class<?> type = method.getReturnType();
        if (Mono.class.isAssignableFrom(type)) {
            return MonoShape.INSTANCE;
        }
        if (Flux.class.isAssignableFrom(type)) {
            return FluxShape.INSTANCE;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            return StageShape.INSTANCE;
        }
        ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
        if (adapter != null) {
            // loads the conversion now (a Flow's first use reads jars), not on the event loop of the first call
            adapter.fromPublisher(Mono.empty());
            return new AdaptedShape(adapter);
        }
        if (unadapted(type)) {
            throw new IllegalArgumentException("it returns " + type.getName() + ", an asynchronous type Spring's"
                    + " ReactiveAdapterRegistry does not adapt in this application, so the limit, lock or slot would"
                    + " end when the method returns rather than when its work does; return a CompletableFuture,"
                    + " Mono or Flux (in Kotlin: a suspend fun or a Flow), or add the library that adapts "
                    + type.getSimpleName() + " (such as kotlinx-coroutines-reactor or RxJava 3)");
        }
        return PlainShape.INSTANCE;
    }

    /**
     * Loads what awaiting a publisher in a coroutine loads on its first use (kotlinx-coroutines' reactive bridge scans
     * its jars for services): at startup, not on the event loop of the first call to a suspend fun.
     */
    private static void warmUpCoroutines(ClassLoader loader) {
        try {
            Class.forName("kotlinx.coroutines.reactive.ReactiveFlowKt", true, loader);
        } catch (ClassNotFoundException | LinkageError absent) {
            // without kotlinx-coroutines-reactor Spring cannot call a suspend fun either, and says so itself
        }
    }

    private static boolean unadapted(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getSuperclass()) {
            if (unadaptedName(t.getName())) {
                return true;
            }
        }
        // every interface of the type and of its superclasses
        for (Class<?> i : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (unadaptedName(i.getName())) {
                return true;
            }
        }
        return false;
    }

    private static boolean unadaptedName(String name) {
        return UNADAPTED.stream()
                .anyMatch(prefix -> prefix.endsWith(".") ? name.startsWith(prefix) : name.equals(prefix));
    }
}
