package io.github.ratelimit.spring.definition.internal;

import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/** Checks at startup that a parsed SpEL expression names only variables that will be there when it is evaluated. */
public final class SpelVariables {

    private SpelVariables() {}

    /** The first {@code #variable} (or {@code #function}) the expression names outside {@code known}, or null. */
    public static @Nullable String firstUnknown(Expression expression, Set<String> known) {
        return expression instanceof SpelExpression spel ? firstUnknown(spel.getAST(), known) : null;
    }

    private static @Nullable String firstUnknown(SpelNode node, Set<String> known) {
        if (node instanceof VariableReference || node instanceof FunctionReference) {
            String name = node.toStringAST().substring(1);
            int paren = name.indexOf('(');
            if (paren >= 0) {
                name = name.substring(0, paren);
            }
            if (!name.equals("this") && !name.equals("root") && !known.contains(name)) {
                return name;
            }
        }
        for (int i = 0; i < node.getChildCount(); i++) {
            String unknown = firstUnknown(node.getChild(i), known);
            if (unknown != null) {
                return unknown;
            }
        }
        return null;
    }
}
