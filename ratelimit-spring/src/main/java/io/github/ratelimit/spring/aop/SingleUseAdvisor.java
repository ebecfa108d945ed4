package io.github.ratelimit.spring.aop;

import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.tokens.SingleUseTokens;
import io.github.ratelimit.spring.internal.AnnotatedMethods;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;

/**
 * Applies {@code @SingleUse} to Spring beans. Runs after {@code @RateLimited} (a call refused by a limit
 * does not burn its token) and before transactions.
 */
public final class SingleUseAdvisor extends AnnotationAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient SingleUseMethods methods;
    private final transient ObjectProvider<SingleUseTokens> tokens;

    /**
     * @param tokens consumes the tokens; looked up on first use
     * @param caller describes the caller of the current call; {@link CallerContext#NONE} when absent
     */
    public SingleUseAdvisor(ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        this(new SingleUseMethods(), tokens, caller);
    }

    private SingleUseAdvisor(
            SingleUseMethods methods, ObjectProvider<SingleUseTokens> tokens, ObjectProvider<CallerContext> caller) {
        super(new SingleUseInterceptor(methods, tokens, caller), Ordered.HIGHEST_PRECEDENCE + 200);
        this.methods = methods;
        this.tokens = tokens;
    }

    @Override
    public String annotation() {
        return "SingleUse";
    }

    @Override
    public boolean declares(Method method) {
        return AnnotatedMethods.isSingleUse(method);
    }

    @Override
    public void validate(Method method) {
        requireStore(tokens, "SingleUseTokens", "SingleUse", method);
        methods.get(method);
    }

    /** The method's compiled token check, or null when it takes no single-use token. */
    SingleUseMethods.@Nullable SingleUseMethod declaration(Method method) {
        return declares(method) ? methods.get(method) : null;
    }
}
