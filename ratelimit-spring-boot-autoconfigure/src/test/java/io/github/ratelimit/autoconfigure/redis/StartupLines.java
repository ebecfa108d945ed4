package io.github.ratelimit.autoconfigure.redis;

import io.github.ratelimit.spring.wiring.StartupSummary;
import org.springframework.context.ApplicationContext;

/** The startup line a context logs, for tests outside this package. */
public final class StartupLines {

    private StartupLines() {}

    public static String of(ApplicationContext context) {
        return context.getBean(StartupSummary.class).line();
    }
}
