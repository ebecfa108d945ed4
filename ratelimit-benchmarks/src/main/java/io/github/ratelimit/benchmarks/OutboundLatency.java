package io.github.ratelimit.benchmarks;

import io.github.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import io.github.ratelimit.autoconfigure.client.RateLimitClientAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedisAutoConfiguration;
import io.github.ratelimit.autoconfigure.redis.RateLimitRedissonAutoConfiguration;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.RestClient;

/**
 * What an outbound rule adds to a call: one RestClient built from Boot's builder calls an upstream that answers in the
 * JVM at once (so that only the client's path is measured), on a path a rule limits and on one no rule matches, in
 * alternating rounds of sequential calls; prints the median latency of each per round, and the difference: the rule's
 * decision, one Redis round trip. Run with {@code --outbound} (and {@code --rounds=N},
 * {@code --calls=N}).
 */
final class OutboundLatency {

    private OutboundLatency() {}

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        RateLimitRedissonAutoConfiguration.class,
        RateLimitRedisAutoConfiguration.class,
        RateLimitAutoConfiguration.class,
        io.github.ratelimit.autoconfigure.aop.RateLimitAopAutoConfiguration.class,
        RateLimitClientAutoConfiguration.class,
        RestClientAutoConfiguration.class
    })
    static class Application {}

    static void run(String redisUrl, int rounds, int calls) throws Exception {
        String base = "http://upstream.invalid";
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .logStartupInfo(false)
                .run(
                        "--spring.data.redis.url=" + redisUrl,
                        "--ratelimit.client.rules[0].name=upstream",
                        "--ratelimit.client.rules[0].paths=/limited/**",
                        "--ratelimit.client.rules[0].limits[0].limit=1000000000",
                        "--ratelimit.client.rules[0].limits[0].window=1m",
                        // a sliding window counts at most 16,777,215: a limit no run reaches is a fixed window's
                        "--ratelimit.client.rules[0].limits[0].algorithm=fixed-window")) {
            RestClient client = context.getBean(RestClient.Builder.class)
                    .requestFactory(new Answering())
                    .baseUrl(base)
                    .build();
            System.out.println("outbound call latency, median of " + calls + " sequential calls per round (us):");
            AlternatingRounds.print(
                    rounds,
                    "no rule",
                    "rule",
                    "the rule",
                    0,
                    "us",
                    () -> measure(client, "/plain/x", calls),
                    () -> measure(client, "/limited/x", calls));
        }
    }

    /** An upstream in the JVM: every request answered 200 at once, so that what is measured is the client's path. */
    private static final class Answering implements ClientHttpRequestFactory {

        @Override
        public ClientHttpRequest createRequest(URI uri, HttpMethod method) {
            HttpHeaders headers = new HttpHeaders();
            return new ClientHttpRequest() {
                @Override
                public ClientHttpResponse execute() {
                    return new ClientHttpResponse() {
                        @Override
                        public HttpStatusCode getStatusCode() {
                            return HttpStatus.OK;
                        }

                        @Override
                        public String getStatusText() {
                            return "OK";
                        }

                        @Override
                        public void close() {}

                        @Override
                        public InputStream getBody() {
                            return InputStream.nullInputStream();
                        }

                        @Override
                        public HttpHeaders getHeaders() {
                            return new HttpHeaders();
                        }
                    };
                }

                @Override
                public OutputStream getBody() {
                    return OutputStream.nullOutputStream();
                }

                @Override
                public HttpMethod getMethod() {
                    return method;
                }

                @Override
                public URI getURI() {
                    return uri;
                }

                @Override
                public Map<String, Object> getAttributes() {
                    return new HashMap<>();
                }

                @Override
                public HttpHeaders getHeaders() {
                    return headers;
                }
            };
        }
    }

    /** The median latency of sequential calls, in microseconds. */
    private static double measure(RestClient client, String path, int calls) {
        long[] micros = new long[calls];
        for (int i = 0; i < calls; i++) {
            long started = System.nanoTime();
            client.get().uri(path).retrieve().toBodilessEntity();
            micros[i] = (System.nanoTime() - started) / 1_000;
        }
        Arrays.sort(micros);
        return micros[calls / 2];
    }
}
