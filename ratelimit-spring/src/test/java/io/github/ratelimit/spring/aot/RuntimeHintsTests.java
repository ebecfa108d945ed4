package io.github.ratelimit.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.ratelimit.annotation.ConcurrencyLimited;
import io.github.ratelimit.annotation.RateLimited;
import io.github.ratelimit.core.RateLimitExceededException;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.DecoratingProxy;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.javapoet.ClassName;

/**
 * The runtime hints an AOT-processed application needs of the starter: every Lua script as a resource, the request
 * types SpEL keys call, and for each annotated bean its methods (a fallback is called by reflection), the types its
 * keys and charges read, and its JDK proxy; all of it found by Spring's AOT through {@code aot.factories}.
 */
class RuntimeHintsTests {

    /** What a charge reads of a result. */
    public record Completion(long tokens, String model) {}

    /** What a key reads of an argument. */
    public record Order(String customerId, long amount) {}

    public interface Orders {
        String place(Order order);

        Completion complete(String prompt);
    }

    public static class OrderService implements Orders {
        @Override
        @RateLimited(limit = 5, windowMs = 1000, key = "#order.customerId", fallback = "busy")
        public String place(Order order) {
            return "placed";
        }

        private String busy(Order order, RateLimitExceededException refusal) {
            return "busy";
        }

        @Override
        @RateLimited(limit = 1000, windowMs = 60_000, charge = "#result.tokens")
        @ConcurrencyLimited(max = 2)
        public Completion complete(String prompt) {
            return new Completion(10, "small");
        }
    }

    public static class Plain {
        public String hello() {
            return "hello";
        }
    }

    @Test
    void everyLuaScriptOfTheStarterIsAResource() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        new RateLimitRuntimeHints().registerHints(hints, getClass().getClassLoader());

        Resource[] scripts =
                new PathMatchingResourcePatternResolver().getResources("classpath*:" + RateLimitRuntimeHints.SCRIPTS);
        assertThat(scripts).as("the scripts the starter ships").hasSizeGreaterThan(10);
        java.util.List<String> paths = new java.util.ArrayList<>();
        for (Resource script : scripts) {
            String url = script.getURL().toString();
            String path = url.substring(url.lastIndexOf("io/github/ratelimit/redis/"));
            paths.add(path);
            assertThat(RuntimeHintsPredicates.resource().forResource(path))
                    .as(path)
                    .accepts(hints);
        }
        // in each capability's package, and the pieces a decision is assembled from
        assertThat(paths)
                .contains(
                        "io/github/ratelimit/redis/instances.lua",
                        "io/github/ratelimit/redis/locks/lock_acquire.lua",
                        "io/github/ratelimit/redis/limits/decide/sliding.lua");
        assertThat(RuntimeHintsPredicates.resource().forResource("io/github/ratelimit/redis/absent.txt"))
                .rejects(hints);
    }

    @Test
    void whatSpelKeysCallOnTheRequestAndOnStrings() throws NoSuchMethodException {
        RuntimeHints hints = new RuntimeHints();
        new RateLimitRuntimeHints().registerHints(hints, getClass().getClassLoader());

        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(HttpServletRequest.class)
                        .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onType(org.springframework.http.server.reactive.ServerHttpRequest.class)
                        .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(String.class.getMethod("startsWith", String.class)))
                .accepts(hints);
    }

    @Test
    void anAnnotatedBeanGetsItsMethodsTheTypesItsExpressionsReadAndItsJdkProxy() {
        RuntimeHints hints = contribute(OrderService.class);

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(OrderService.class, "busy"))
                .as("the fallback, called by reflection")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "customerId"))
                .as("what the key reads of the argument")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Completion.class, "tokens"))
                .as("what the charge reads of the result")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.proxies()
                        .forInterfaces(Orders.class, SpringProxy.class, Advised.class, DecoratingProxy.class))
                .accepts(hints);
    }

    @Test
    void aBeanWithoutTheAnnotationsContributesNothing() {
        assertThat(processor().processAheadOfTime(registered(Plain.class))).isNull();
        assertThat(AnnotatedBeansAotProcessor.annotatedMethods(OrderService.class))
                .extracting(java.lang.reflect.Method::getName)
                .containsExactlyInAnyOrder("place", "complete");
    }

    @Test
    void springsAotFindsBothThroughAotFactories() {
        AotServices<RuntimeHintsRegistrar> registrars = AotServices.factories().load(RuntimeHintsRegistrar.class);
        assertThat(registrars.asList()).hasAtLeastOneElementOfType(RateLimitRuntimeHints.class);
        AotServices<BeanRegistrationAotProcessor> processors =
                AotServices.factories().load(BeanRegistrationAotProcessor.class);
        assertThat(processors.asList()).hasAtLeastOneElementOfType(AnnotatedBeansAotProcessor.class);
    }

    private static BeanRegistrationAotProcessor processor() {
        return new AnnotatedBeansAotProcessor();
    }

    private static RegisteredBean registered(Class<?> type) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(type));
        return RegisteredBean.of(beanFactory, "bean");
    }

    private static RuntimeHints contribute(Class<?> type) {
        BeanRegistrationAotContribution contribution = processor().processAheadOfTime(registered(type));
        assertThat(contribution).isNotNull();
        DefaultGenerationContext context = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(RuntimeHintsTests.class)), new InMemoryGeneratedFiles());
        contribution.applyTo(context, null);
        return context.getRuntimeHints();
    }
}
