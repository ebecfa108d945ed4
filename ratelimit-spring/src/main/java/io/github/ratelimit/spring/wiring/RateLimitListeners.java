package io.github.ratelimit.spring.wiring;

import io.github.ratelimit.core.RateLimitEvents;
import io.github.ratelimit.core.RateLimitListener;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Adds every {@link RateLimitListener} bean (the starter's metrics and observations, an application's own) to the
 * events of each bean that publishes them ({@link RateLimitEvents.Source}: the Redis implementations, the decision
 * flow, the endpoint), as each is made, lazy ones included. The bean itself is returned as it was: nothing is wrapped.
 */
public final class RateLimitListeners implements BeanPostProcessor {

    private final ObjectProvider<RateLimitListener> listeners;
    private volatile @Nullable List<RateLimitListener> resolved;

    public RateLimitListeners(ObjectProvider<RateLimitListener> listeners) {
        this.listeners = listeners;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof RateLimitEvents.Source source) {
            RateLimitEvents events = source.events();
            for (RateLimitListener listener : listeners()) {
                if (listener != events) {
                    events.add(listener);
                }
            }
        }
        return bean;
    }

    private List<RateLimitListener> listeners() {
        List<RateLimitListener> known = resolved;
        if (known == null) {
            known = listeners
                    .orderedStream()
                    .filter(listener -> !(listener instanceof RateLimitEvents))
                    .toList();
            resolved = known;
        }
        return known;
    }
}
