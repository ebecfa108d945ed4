package io.github.ratelimit.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.cloud.CloudPlatform;
import org.springframework.core.env.Environment;

/**
 * Warns at startup when the web server rewrites the client address before the rate limiter sees it: with
 * {@code server.forward-headers-strategy=native} (the default on some cloud platforms) Tomcat trusts
 * {@code X-Forwarded-For} from its internal proxies, loopback and private ranges by default, so a client on such an
 * address could choose its own identity; Reactor Netty trusts the forwarded headers of every client.
 */
final class ForwardedHeadersCheck implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(ForwardedHeadersCheck.class);

    private final Environment environment;
    private final boolean reactive;

    ForwardedHeadersCheck(Environment environment) {
        this(environment, false);
    }

    /** @param reactive whether the server is Reactor Netty (WebFlux) rather than a servlet container */
    ForwardedHeadersCheck(Environment environment, boolean reactive) {
        this.environment = environment;
        this.reactive = reactive;
    }

    @Override
    public void afterSingletonsInstantiated() {
        String strategy = environment.getProperty("server.forward-headers-strategy");
        CloudPlatform platform = CloudPlatform.getActive(environment);
        boolean nativeStrategy = "native".equalsIgnoreCase(strategy)
                || (strategy == null && platform != null && platform.isUsingForwardHeaders());
        if (nativeStrategy && reactive) {
            log.warn("server.forward-headers-strategy is native: the reactive server replaces the client address"
                    + " with the Forwarded or X-Forwarded-For header of any client, before rate limits see it, so a"
                    + " client can choose its own identity. Use server.forward-headers-strategy=none with"
                    + " ratelimit.client.trusted-proxies.");
        } else if (nativeStrategy && !environment.containsProperty("server.tomcat.remoteip.internal-proxies")) {
            log.warn("server.forward-headers-strategy is native: the servlet container replaces the client address"
                    + " with X-Forwarded-For when the request comes from its internal proxies (by default loopback"
                    + " and private ranges), before rate limits see it. Set server.tomcat.remoteip.internal-proxies"
                    + " to exactly your proxies, or use server.forward-headers-strategy=none with"
                    + " ratelimit.client.trusted-proxies.");
        }
    }
}
