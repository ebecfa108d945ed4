package io.github.ratelimit.spring.openapi;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimit;
import io.github.ratelimit.spring.definition.LimitDefinition;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.internal.MethodDeclarations;
import io.github.ratelimit.spring.internal.MethodLimits;
import io.github.ratelimit.spring.web.Refusals;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.media.ArraySchema;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.springdoc.core.customizers.GlobalOpenApiCustomizer;
import org.springdoc.core.customizers.GlobalOperationCustomizer;
import org.springframework.web.method.HandlerMethod;

/**
 * What the starter can answer, added to the application's OpenAPI description (springdoc): for each operation, the
 * 429 of its rate limits, concurrency limits and matching path rules (with the {@code Retry-After}, {@code RateLimit}
 * and {@code RateLimit-Policy} headers and the problem body), the 400/404/409 of a single-use token, the 409 of a
 * lock, and the 503 where Redis cannot decide and nothing is decided in its place. The limits themselves are listed
 * in an {@code x-ratelimit} extension and one sentence of the description: names, quotas, windows and the kinds of
 * key, never a client's data or a key expression. Responses the application declares itself are left as they are.
 */
public final class RateLimitOpenApi {

    static final String EXTENSION = "x-ratelimit";
    static final String QUOTA_PROBLEM = "RateLimitQuotaProblem";
    static final String PROBLEM = "RateLimitProblem";
    private static final String PROBLEM_JSON = "application/problem+json";
    private static final String SCHEMAS = "#/components/schemas/";
    /** The SpEL variables that name who calls, shown as the kind they are. */
    private static final Set<String> IDENTITIES = Set.of("#client", "#ip", "#principal");

    private final Supplier<? extends MethodDeclarations> declarations;
    private final Supplier<List<PathRules>> rules;
    private final FailureMode failureMode;

    /**
     * @param failureMode the application's failure mode, for limits that keep the default
     * @param rules the path rules of the application's filter; empty without one
     */
    public RateLimitOpenApi(
            Supplier<? extends MethodDeclarations> declarations,
            Supplier<List<PathRules>> rules,
            FailureMode failureMode) {
        this.declarations = declarations;
        this.rules = rules;
        this.failureMode = failureMode;
    }

    /** The operations of annotated methods. */
    public GlobalOperationCustomizer operations() {
        return this::document;
    }

    /** The operations that path rules apply to, and the schemas every added answer refers to. */
    public GlobalOpenApiCustomizer pathRules() {
        return this::document;
    }

    Operation document(Operation operation, HandlerMethod handler) {
        Method method = handler.getMethod();
        Answers answers = new Answers();
        MethodDeclarations declared = declarations.get();
        if (declared == null) {
            return operation;
        }
        MethodLimits limits = declared.rateLimits(method);
        if (limits != null) {
            for (MethodLimits.CompiledLimit limit : limits.limits()) {
                answers.rateLimit(limit.definition(), "annotation", limits.fallback() != null);
            }
        }
        MethodDeclarations.ConcurrencyLimit concurrency = declared.concurrencyLimit(method);
        if (concurrency != null) {
            answers.concurrencyLimit(concurrency);
        }
        if (declared.takesToken(method)) {
            answers.token();
        }
        if (declared.locks(method)) {
            answers.lock();
        }
        answers.applyTo(operation);
        return operation;
    }

    void document(OpenAPI openApi) {
        if (openApi.getPaths() != null) {
            List<PathRules> applied = rules.get();
            openApi.getPaths().forEach((path, item) -> {
                for (Map.Entry<PathItem.HttpMethod, Operation> entry :
                        item.readOperationsMap().entrySet()) {
                    Answers answers = new Answers();
                    for (PathRules pathRules : applied) {
                        for (LimitDefinition definition :
                                pathRules.definitionsFor(entry.getKey().name(), path)) {
                            answers.rateLimit(definition, "path-rule", false);
                        }
                    }
                    answers.applyTo(entry.getValue());
                }
            });
        }
        if (usesOurSchemas(openApi)) {
            if (openApi.getComponents() == null) {
                openApi.setComponents(new Components());
            }
            openApi.getComponents().addSchemas(QUOTA_PROBLEM, quotaProblem());
            openApi.getComponents().addSchemas(PROBLEM, problem());
        }
    }

    private static boolean usesOurSchemas(OpenAPI openApi) {
        return openApi.getPaths() != null
                && openApi.getPaths().values().stream()
                        .flatMap(item -> item.readOperations().stream())
                        .anyMatch(operation -> operation.getExtensions() != null
                                        && operation.getExtensions().containsKey(EXTENSION)
                                || operation.getResponses() != null
                                        && operation.getResponses().values().stream()
                                                .anyMatch(RateLimitOpenApi::refersToOurSchemas));
    }

    private static boolean refersToOurSchemas(ApiResponse response) {
        return response.getContent() != null
                && response.getContent().values().stream()
                        .anyMatch(media -> media.getSchema() != null
                                        && (SCHEMAS + QUOTA_PROBLEM)
                                                .equals(media.getSchema().get$ref())
                                || media.getSchema() != null
                                        && (SCHEMAS + PROBLEM)
                                                .equals(media.getSchema().get$ref()));
    }

    /** What one operation can be answered, gathered from its annotations or from the rules that match it. */
    private final class Answers {
        private final List<Map<String, Object>> limits = new ArrayList<>();
        private final List<String> sentences = new ArrayList<>();
        private boolean tooManyRequests;
        private boolean unavailable;
        private boolean token;
        private boolean lock;

        /** @param fallback whether the method's fallback answers its refusals instead of a 429 */
        void rateLimit(LimitDefinition definition, String source, boolean fallback) {
            List<String> keys =
                    definition.keys().stream().map(RateLimitOpenApi::keyKind).toList();
            for (RateLimit limit : definition.limits()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("name", limit.name());
                entry.put("limit", limit.limit());
                entry.put("window", limit.window().toString());
                if (limit.period() != null) {
                    entry.put("period", limit.period().unit().name().toLowerCase(Locale.ROOT));
                    entry.put("zone", limit.period().zone().getId());
                }
                if (!limit.penalty().isZero()) {
                    entry.put("penalty", limit.penalty().toString());
                }
                if (limit.ceiling() != limit.limit()) {
                    entry.put("share", limit.share());
                }
                if (limit.leased()) {
                    entry.put("lease", limit.lease());
                }
                entry.put(
                        "algorithm",
                        limit.algorithm().name().toLowerCase(Locale.ROOT).replace('_', '-'));
                entry.put("keys", keys);
                entry.put("source", source);
                if (definition.planGroup() != null) {
                    entry.put("plan-group", definition.planGroup());
                    entry.put("plan", limit.plan());
                }
                if (definition.shadow()) {
                    entry.put("shadow", true);
                }
                if (fallback) {
                    entry.put("fallback", true);
                }
                limits.add(entry);
                sentences.add((limit.plan() == null ? "" : "plan " + limit.plan() + ": ")
                        + (limit.ceiling() != limit.limit()
                                ? limit.ceiling() + " of a budget of " + limit.limit()
                                : Long.toString(limit.limit()))
                        + " per "
                        + (limit.period() != null ? "calendar " + limit.period() : window(limit.window()))
                        + " per " + String.join(" and ", keys)
                        + (limit.penalty().isZero()
                                ? ""
                                : ", then refused for " + seconds(limit.penalty()) + " once refused")
                        + (definition.shadow() ? " (counted, not enforced)" : ""));
            }
            if (!definition.shadow()) {
                tooManyRequests |= !fallback;
                FailureMode mode =
                        definition.failureMode() == FailureMode.DEFAULT ? failureMode : definition.failureMode();
                unavailable |= mode == FailureMode.CLOSED;
            }
        }

        void concurrencyLimit(MethodDeclarations.ConcurrencyLimit declaration) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", declaration.name());
            entry.put("concurrent", declaration.max());
            entry.put("keys", List.of(keyKind(declaration.keyText())));
            entry.put("source", "annotation");
            limits.add(entry);
            sentences.add(declaration.max() + " in progress per " + keyKind(declaration.keyText()));
            tooManyRequests = true;
            unavailable = true;
        }

        void token() {
            token = true;
            unavailable = true;
        }

        void lock() {
            lock = true;
            unavailable = true;
        }

        void applyTo(Operation operation) {
            if (limits.isEmpty() && !token && !lock) {
                return;
            }
            if (operation.getResponses() == null) {
                operation.setResponses(new ApiResponses());
            }
            ApiResponses responses = operation.getResponses();
            if (!limits.isEmpty()) {
                List<Object> all = new ArrayList<>();
                if (operation.getExtensions() != null
                        && operation.getExtensions().get(EXTENSION) instanceof List<?> earlier) {
                    all.addAll(earlier);
                }
                all.addAll(limits);
                operation.addExtension(EXTENSION, all);
                String sentence = "Rate limited: " + String.join("; ", sentences) + ".";
                String description = operation.getDescription();
                operation.setDescription(
                        description == null || description.isBlank() ? sentence : description + "\n\n" + sentence);
                responses.forEach((status, response) -> {
                    if (status.startsWith("2")) {
                        response.addHeaderObject("RateLimit-Policy", policyHeader());
                        response.addHeaderObject("RateLimit", limitHeader());
                    }
                });
            }
            if (tooManyRequests) {
                add(
                        responses,
                        "429",
                        new ApiResponse()
                                .description("Too many requests: a limit refused the call; nothing was counted."
                                        + " Retry after the seconds Retry-After gives.")
                                .addHeaderObject("Retry-After", retryAfter())
                                .addHeaderObject("RateLimit-Policy", policyHeader())
                                .addHeaderObject("RateLimit", limitHeader())
                                .content(problemContent(QUOTA_PROBLEM)));
            }
            if (token) {
                add(responses, "400", problemResponse("The single-use token is missing or malformed."));
                add(responses, "404", problemResponse("The single-use token is unknown or expired."));
                add(responses, "409", problemResponse("The single-use token was already used."));
            }
            if (lock) {
                add(
                        responses,
                        "409",
                        problemResponse("Another request holds the lock for this resource.")
                                .addHeaderObject("Retry-After", retryAfter()));
            }
            if (unavailable) {
                add(
                        responses,
                        "503",
                        problemResponse("Redis could not decide in time and nothing decides in its place.")
                                .addHeaderObject("Retry-After", retryAfter()));
            }
        }

        private void add(ApiResponses responses, String status, ApiResponse response) {
            ApiResponse existing = responses.get(status);
            if (existing == null) {
                responses.addApiResponse(status, response);
            } else if (refersToOurSchemas(existing)
                    && !existing.getDescription().contains(response.getDescription())) {
                // the same status for two reasons (a used token and a busy lock): one answer that says both
                existing.setDescription(existing.getDescription() + " Or: " + response.getDescription());
                if (response.getHeaders() != null) {
                    response.getHeaders().forEach(existing::addHeaderObject);
                }
            }
        }
    }

    /**
     * A key as an API description shows it: the built-in kinds and resolver beans by name, a header by its name;
     * a SpEL expression only as {@code expression}, since it is code.
     */
    static String keyKind(String key) {
        String kind = ClientIdentifier.normalizeKind(key);
        if (IDENTITIES.contains(kind)) {
            return kind.substring(1);
        }
        if (kind.startsWith("#") || kind.startsWith("spel:") || !kind.matches("[A-Za-z0-9_.:-]+")) {
            return "expression";
        }
        return kind;
    }

    private static String seconds(Duration duration) {
        long ms = duration.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    private static String window(Duration window) {
        long ms = window.toMillis();
        if (ms % 3_600_000 == 0) {
            return ms == 3_600_000 ? "hour" : ms / 3_600_000 + " hours";
        }
        if (ms % 60_000 == 0) {
            return ms == 60_000 ? "minute" : ms / 60_000 + " minutes";
        }
        if (ms % 1000 == 0) {
            return ms == 1000 ? "second" : ms / 1000 + " seconds";
        }
        return ms + " ms";
    }

    private static ApiResponse problemResponse(String description) {
        return new ApiResponse().description(description).content(problemContent(PROBLEM));
    }

    private static Content problemContent(String schema) {
        return new Content().addMediaType(PROBLEM_JSON, new MediaType().schema(new Schema<>().$ref(SCHEMAS + schema)));
    }

    private static Header retryAfter() {
        return new Header()
                .description("Seconds to wait before trying again (delay-seconds, rounded up, at least 1).")
                .schema(new IntegerSchema().minimum(BigDecimal.ONE));
    }

    private static Header policyHeader() {
        return new Header()
                .description("The limits that apply (RFC 9651 List): each item a policy name, with q the quota,"
                        + " w the window in seconds, and qu=\"concurrent-requests\" for a concurrency limit."
                        + " IETF draft-ietf-httpapi-ratelimit-headers.")
                .schema(new StringSchema().example("\"search-1s-ip\";q=10;w=1"));
    }

    private static Header limitHeader() {
        return new Header()
                .description("What is left (RFC 9651 List): each item a policy name, with r the units remaining and"
                        + " t the seconds until they are back. IETF draft-ietf-httpapi-ratelimit-headers.")
                .schema(new StringSchema().example("\"search-1s-ip\";r=9;t=1"));
    }

    private static Schema<?> problem() {
        return new ObjectSchema()
                .description("An RFC 9457 problem.")
                .addProperty("type", new StringSchema().format("uri"))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema())
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema().format("uri-reference"))
                .addProperty(
                        "purpose",
                        new StringSchema()
                                .description("The purpose of the single-use token refused (never the token)."));
    }

    private static Schema<?> quotaProblem() {
        return new ObjectSchema()
                .description("An RFC 9457 problem of type quota-exceeded (IANA HTTP Problem Types).")
                .addProperty("type", new StringSchema().format("uri")._default(Refusals.QUOTA_EXCEEDED.toString()))
                .addProperty("title", new StringSchema())
                .addProperty("status", new IntegerSchema()._default(429))
                .addProperty("detail", new StringSchema())
                .addProperty("instance", new StringSchema().format("uri-reference"))
                .addProperty(
                        "violated-policies",
                        new ArraySchema()
                                .items(new StringSchema())
                                .description(
                                        "The names of the policies that refused the call, as in RateLimit-Policy."));
    }
}
