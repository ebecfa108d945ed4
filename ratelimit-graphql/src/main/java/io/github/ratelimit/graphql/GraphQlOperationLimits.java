package io.github.ratelimit.graphql;

import graphql.ExecutionResult;
import graphql.GraphQLError;
import graphql.GraphqlErrorBuilder;
import graphql.language.Definition;
import graphql.language.Document;
import graphql.language.Field;
import graphql.language.FragmentDefinition;
import graphql.language.FragmentSpread;
import graphql.language.InlineFragment;
import graphql.language.OperationDefinition;
import graphql.language.Selection;
import graphql.language.SelectionSet;
import graphql.parser.Parser;
import io.github.ratelimit.core.CallerContext;
import io.github.ratelimit.core.RateLimitEvaluationException;
import io.github.ratelimit.core.RateLimitExceededException;
import io.github.ratelimit.core.RedisUnavailableException;
import io.github.ratelimit.decision.RateLimitDecisions;
import io.github.ratelimit.spring.call.CallRunner;
import io.github.ratelimit.spring.definition.DeclaredLimits;
import io.github.ratelimit.spring.definition.FilterRuleSpec;
import io.github.ratelimit.spring.definition.InvalidFilterRuleException;
import io.github.ratelimit.spring.definition.KeyResolvers;
import io.github.ratelimit.spring.definition.PathRules;
import io.github.ratelimit.spring.definition.Plans;
import io.github.ratelimit.spring.definition.RefreshableLimits;
import io.github.ratelimit.spring.web.RateLimitHeaders;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.graphql.server.WebGraphQlInterceptor;
import org.springframework.graphql.server.WebGraphQlRequest;
import org.springframework.graphql.server.WebGraphQlResponse;
import org.springframework.graphql.support.DefaultExecutionGraphQlResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Limits GraphQL operations by their complexity: the rules of {@code ratelimit.graphql.rules} whose paths match an
 * operation ({@code query/QuoteOf}, {@code mutation/*}, {@code subscription/**}; an operation without a name is {@code
 * anonymous}) are decided before it is executed, through the same runner as HTTP: on a thread that may block (a
 * servlet's) there, so that the operation runs on it as it would without them; elsewhere without blocking. Each rule
 * takes its {@code cost} once per unit of the operation's cost: {@code ratelimit.graphql.cost}, by default the fields
 * it selects (fields of fragments counted where they are spread). A refused operation is not executed: its answer is
 * one error ({@code classification: "RATE_LIMITED"}, {@code retryAfter}, {@code policy}) with no {@code data}, which
 * Spring for GraphQL answers with the status the GraphQL over HTTP specification gives its media type (200 for {@code
 * application/json}, 4xx for {@code application/graphql-response+json}), with {@code Retry-After} and the RateLimit
 * fields. Keys read the request's headers ({@code header:x-user-id}) or its client's address ({@code ip}).
 */
public final class GraphQlOperationLimits
        implements WebGraphQlInterceptor, DeclaredLimits, RefreshableLimits<RateLimitGraphQlProperties> {

    private static final Logger log = LoggerFactory.getLogger(GraphQlOperationLimits.class);

    private volatile PathRules rules;
    private volatile ToLongFunction<Operation> cost;
    private final RateLimitDecisions decisions;
    private final KeyResolvers keys;
    private final boolean allPolicies;

    /**
     * @param rules the rules; each is checked now and fails with {@link InvalidFilterRuleException}
     * @param cost the units an operation costs, a SpEL expression over {@code #fields} (the fields it selects),
     *     {@code #depth} (its deepest field's), {@code #type} and {@code #name}; checked now
     * @param decisions the decision flow shared with the annotations
     * @param plans the plan groups rules may name
     * @param allPolicies whether the RateLimit fields carry every limit instead of those the client needs
     * @param keys the kinds of key rules may name
     */
    public GraphQlOperationLimits(
            List<FilterRuleSpec> rules,
            String cost,
            RateLimitDecisions decisions,
            Plans plans,
            boolean allPolicies,
            KeyResolvers keys) {
        this.decisions = decisions;
        this.keys = keys;
        this.allPolicies = allPolicies;
        this.rules = compile(rules, plans, keys);
        this.cost = costOf(cost);
    }

    @Override
    public List<DeclaredLimit> declaredLimits() {
        return rules.declaredLimits();
    }

    /** Refreshed {@code ratelimit.graphql} rules and cost, compiled now, put in force when all parts compiled. */
    @Override
    public Runnable prepare(RateLimitGraphQlProperties settings, Plans plans) {
        PathRules refreshed = compile(settings.getRules(), plans, keys);
        ToLongFunction<Operation> refreshedCost = costOf(settings.getCost());
        return () -> {
            this.rules = refreshed;
            this.cost = refreshedCost;
        };
    }

    private static PathRules compile(List<FilterRuleSpec> rules, Plans plans, KeyResolvers keys) {
        return new PathRules(rules, "ratelimit.graphql.rules", plans, keys);
    }

    /**
     * The cost expression, compiled and tried on an operation of one field.
     *
     * @throws InvalidFilterRuleException naming {@code ratelimit.graphql.cost} when it is not SpEL or gives no number
     */
    static ToLongFunction<Operation> costOf(String expression) {
        Expression parsed;
        try {
            parsed = new SpelExpressionParser().parseExpression(expression);
        } catch (ParseException e) {
            throw new InvalidFilterRuleException(COST, "is not a SpEL expression: " + e.getMessage());
        }
        ToLongFunction<Operation> cost = operation -> {
            EvaluationContext context =
                    SimpleEvaluationContext.forReadOnlyDataBinding().build();
            context.setVariable("fields", operation.fields());
            context.setVariable("depth", operation.depth());
            context.setVariable("type", operation.type());
            context.setVariable("name", operation.name());
            Object units = parsed.getValue(context);
            if (!(units instanceof Number number) || number.doubleValue() < 0) {
                throw new InvalidFilterRuleException(
                        COST, "'" + expression + "' gave " + units + ", not a number of 0 or more");
            }
            return (long) Math.ceil(number.doubleValue());
        };
        try {
            cost.applyAsLong(new Operation("query", "anonymous", 1, 1));
        } catch (EvaluationException e) {
            throw new InvalidFilterRuleException(COST, "'" + expression + "' cannot be evaluated: " + e.getMessage());
        }
        return cost;
    }

    private static final String COST = "ratelimit.graphql.cost";

    /** An operation's units; its fields when the expression fails on it (logged once). */
    private long units(Operation operation) {
        try {
            return cost.applyAsLong(operation);
        } catch (RuntimeException e) {
            if (!costFailed) {
                costFailed = true;
                log.warn(
                        "{} failed on the operation {}/{}, which costs its {} fields instead: {}",
                        COST,
                        operation.type(),
                        operation.name(),
                        operation.fields(),
                        e.getMessage());
            }
            return operation.fields();
        }
    }

    private volatile boolean costFailed;

    @Override
    public Mono<WebGraphQlResponse> intercept(WebGraphQlRequest request, Chain chain) {
        PathRules applied = rules;
        if (applied.isEmpty()) { // no rules: the document is not even parsed
            return chain.next(request);
        }
        Operation operation = Operation.of(request.getDocument(), request.getOperationName());
        String named = operation.type() + "/" + operation.name(); // query/Name
        Map<String, String> fields = new HashMap<>();
        CallerContext caller = PathRules.view(
                request,
                name -> request.getHeaders().getFirst(name),
                () -> null,
                () -> address(request.getRemoteAddress()),
                decision -> fields.putAll(RateLimitHeaders.of(decision, allPolicies)));
        CallRunner.Start start = new CallRunner.Start(
                decisions,
                caller,
                view -> applied.call(named, view, decisions, units(operation)),
                RateLimitDecisions.After.DEFAULT);
        if (!Schedulers.isInNonBlockingThread()) {
            // a thread that may block (a servlet's): decided here, so that the operation runs on it as it would
            // without the rules, and its blocking data fetchers (annotated ones too) stay where they may block
            return Mono.defer(() -> CallRunner.<Mono<WebGraphQlResponse>, RuntimeException>run(
                            start, refusal -> Mono.just(refused(request, refusal)), end -> chain.next(request)
                                    .doOnNext(response -> answered(response, fields))))
                    .onErrorResume(GraphQlOperationLimits::refusal, error -> Mono.just(refused(request, error)));
        }
        AtomicBoolean admitted = new AtomicBoolean();
        return CallRunner.mono(start, end -> {
                    admitted.set(true);
                    return chain.next(request).doOnNext(response -> answered(response, fields));
                })
                .onErrorResume(error -> !admitted.get() && refusal(error), error -> Mono.just(refused(request, error)));
    }

    /** An admitted operation's answer carries the RateLimit fields of its admission. */
    private static void answered(WebGraphQlResponse response, Map<String, String> fields) {
        fields.forEach((name, value) -> response.getResponseHeaders().set(name, value));
    }

    private static boolean refusal(Throwable error) {
        return error instanceof RateLimitExceededException
                || error instanceof RedisUnavailableException
                || error instanceof RateLimitEvaluationException;
    }

    /** The answer of a refused operation: one error, no data, with the refusal's HTTP fields. */
    private WebGraphQlResponse refused(WebGraphQlRequest request, Throwable error) {
        GraphQLError answer = GraphQlRefusals.error(error, GraphqlErrorBuilder.newError(), allPolicies);
        WebGraphQlResponse response = new WebGraphQlResponse(new DefaultExecutionGraphQlResponse(
                request.toExecutionInput(),
                ExecutionResult.newExecutionResult().addError(answer).build()));
        if (error instanceof RateLimitExceededException exceeded) {
            // a refused decision's fields include Retry-After
            RateLimitHeaders.of(exceeded.decision(), allPolicies).forEach(response.getResponseHeaders()::set);
        }
        return response;
    }

    private static @Nullable String address(@Nullable InetSocketAddress remote) {
        return remote == null || remote.getAddress() == null
                ? null
                : remote.getAddress().getHostAddress();
    }

    /**
     * An operation as the rules see it: its type, its name ({@code anonymous} without one) and the fields it selects.
     * A document that cannot be parsed, or that has no such operation, is an anonymous query of one field: the rules
     * still apply to it, and GraphQL answers its error.
     */
    record Operation(String type, String name, long fields, int depth) {

        static final Operation UNREADABLE = new Operation("query", "anonymous", 1, 1);

        static Operation of(String document, @Nullable String operationName) {
            Document parsed;
            try {
                parsed = Parser.parse(document);
            } catch (RuntimeException e) {
                return UNREADABLE;
            }
            Map<String, FragmentDefinition> fragments = new HashMap<>();
            OperationDefinition chosen = null;
            int operations = 0;
            for (Definition<?> definition : parsed.getDefinitions()) {
                if (definition instanceof FragmentDefinition fragment) {
                    fragments.put(fragment.getName(), fragment);
                } else if (definition instanceof OperationDefinition operation) {
                    operations++;
                    if (operationName == null ? chosen == null : operationName.equals(operation.getName())) {
                        chosen = operation;
                    }
                }
            }
            if (chosen == null || (operationName == null && operations > 1)) {
                return UNREADABLE;
            }
            long[] counted = count(chosen.getSelectionSet(), fragments, new HashSet<>());
            return new Operation(
                    chosen.getOperation().name().toLowerCase(Locale.ROOT),
                    chosen.getName() == null ? "anonymous" : chosen.getName(),
                    Math.max(1, counted[0]),
                    (int) Math.max(1, counted[1]));
        }

        /**
         * The fields of a selection, nested ones included, and its depth (of its deepest field); a fragment spread
         * within itself counts once.
         */
        private static long[] count(
                @Nullable SelectionSet selections, Map<String, FragmentDefinition> fragments, Set<String> spreading) {
            long fields = 0;
            long depth = 0;
            if (selections == null) {
                return new long[] {0, 0};
            }
            for (Selection<?> selection : selections.getSelections()) {
                long[] inner = {0, 0};
                if (selection instanceof Field field) {
                    inner = count(field.getSelectionSet(), fragments, spreading);
                    inner = new long[] {inner[0] + 1, inner[1] + 1};
                } else if (selection instanceof InlineFragment inline) {
                    inner = count(inline.getSelectionSet(), fragments, spreading);
                } else if (selection instanceof FragmentSpread spread && spreading.add(spread.getName())) {
                    FragmentDefinition fragment = fragments.get(spread.getName());
                    inner = fragment == null ? inner : count(fragment.getSelectionSet(), fragments, spreading);
                    spreading.remove(spread.getName());
                }
                fields += inner[0];
                depth = Math.max(depth, inner[1]);
            }
            return new long[] {fields, depth};
        }
    }
}
