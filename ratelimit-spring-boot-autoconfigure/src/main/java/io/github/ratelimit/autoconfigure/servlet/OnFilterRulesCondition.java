package io.github.ratelimit.autoconfigure.servlet;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when anything is set under {@code ratelimit.filter.rules}, in any form ({@code paths: /x/**} as a single
 * value, properties or YAML, a list or a misspelt map), so that a rule is never dropped without a word: what does
 * not bind to a rule then fails the start.
 */
final class OnFilterRulesCondition extends SpringBootCondition {

    private static final ConfigurationPropertyName RULES = ConfigurationPropertyName.of("ratelimit.filter.rules");

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(context.getEnvironment())) {
            if (source.containsDescendantOf(RULES) == ConfigurationPropertyState.PRESENT) {
                return ConditionOutcome.match("ratelimit.filter.rules is set");
            }
        }
        return ConditionOutcome.noMatch("no ratelimit.filter.rules");
    }
}
