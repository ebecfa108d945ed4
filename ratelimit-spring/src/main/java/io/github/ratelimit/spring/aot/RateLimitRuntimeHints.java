package io.github.ratelimit.spring.aot;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What an AOT-processed application (a native image above all) needs of the starter beyond its beans: the Lua scripts,
 * read as class path resources, and the methods SpEL keys call on what they are given ({@code #request.getHeader('X')}
 * on the servlet or the reactive request, {@code #ip.startsWith('10.')} on a string). The application's own beans are
 * {@link AnnotatedBeansAotProcessor}'s.
 */
final class RateLimitRuntimeHints implements RuntimeHintsRegistrar {

    /** Every script of the starter, beside the classes that run them, and the pieces decisions are assembled from. */
    static final String SCRIPTS = "io/github/ratelimit/redis/**/*.lua";

    /** What {@code #request}, {@code #ip}, {@code #principal} and {@code #client} are, where present. */
    static final List<String> SPEL_TYPES = List.of(
            "java.lang.String",
            "jakarta.servlet.ServletRequest",
            "jakarta.servlet.http.HttpServletRequest",
            "org.apache.catalina.connector.RequestFacade",
            "org.springframework.http.HttpMessage",
            "org.springframework.http.HttpRequest",
            "org.springframework.http.HttpHeaders",
            "org.springframework.http.server.reactive.ServerHttpRequest",
            "org.springframework.http.server.reactive.AbstractServerHttpRequest",
            "org.springframework.http.server.reactive.ReactorServerHttpRequest");

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS);
        for (String type : SPEL_TYPES) {
            if (ClassUtils.isPresent(type, classLoader)) {
                hints.reflection().registerType(TypeReference.of(type), MemberCategory.INVOKE_PUBLIC_METHODS);
            }
        }
    }
}
