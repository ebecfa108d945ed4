package io.github.ratelimit.spring.definition;

import io.github.ratelimit.annotation.FailureMode;
import io.github.ratelimit.core.ClientIdentifier;
import io.github.ratelimit.core.RateLimit;
import java.util.List;

/** Something that declares limits: the annotation support, the servlet filter. */
public interface DeclaredLimits {

    /** The limits declared so far; after startup, all of them. */
    List<DeclaredLimit> declaredLimits();

    /**
     * A limit the application declares, for operators: where it comes from (a method or a filter rule), the limit,
     * and how callers are identified.
     *
     * @param source the annotated method or the rule ({@code ratelimit.filter.rules[0]})
     * @param limit the limit
     * @param keys the key expressions (annotations) or key kind (rules)
     * @param shadow whether it only counts and reports
     * @param failureMode what calls do when Redis cannot decide ({@code DEFAULT}: the application's mode)
     * @param perPath whether each concrete path is counted apart (a rule with {@code per-path: true})
     */
    public record DeclaredLimit(
            String source,
            RateLimit limit,
            List<String> keys,
            boolean shadow,
            FailureMode failureMode,
            boolean perPath) {

        public DeclaredLimit {
            keys = keys.stream().map(ClientIdentifier::normalizeKind).toList();
        }

        /** A limit counted once per client, whatever the path. */
        public DeclaredLimit(String source, RateLimit limit, List<String> keys, boolean shadow) {
            this(source, limit, keys, shadow, FailureMode.DEFAULT, false);
        }
    }
}
