package io.github.ratelimit.spring.aop;

import java.lang.reflect.Method;

/** An advisor whose declarations are checked at startup by {@link AnnotationStartupValidator}. */
interface ValidatingAdvisor {

    /** The simple name of the annotation, such as {@code RateLimited}. */
    String annotation();

    /** Whether the method carries this advisor's annotation. */
    boolean declares(Method method);

    /** Compiles and checks the method's declaration, throwing what a call would otherwise throw later. */
    void validate(Method method);
}
