package io.github.ratelimit.test.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.greenbytes.http.sfv.Item;
import org.greenbytes.http.sfv.ListElement;
import org.greenbytes.http.sfv.OuterList;
import org.greenbytes.http.sfv.Parser;
import org.greenbytes.http.sfv.StringItem;

/**
 * The RateLimit and RateLimit-Policy fields as an RFC 9651 parser reads them (never by string matching): each member
 * a String item with Integer parameters, its name unique in the field, every RateLimit name declared in the policy.
 */
public record RateLimitFields(Map<String, Map<String, Long>> policies, Map<String, Map<String, Long>> states) {

    /** Parses and checks both fields; fails the test when either is not what the draft allows. */
    public static RateLimitFields parse(String policyField, String stateField) {
        assertThat(policyField).as("RateLimit-Policy").isNotNull();
        assertThat(stateField).as("RateLimit").isNotNull();
        RateLimitFields fields = new RateLimitFields(members(policyField, "q", "w"), members(stateField, "r", "t"));
        assertThat(fields.policies().keySet())
                .as("every RateLimit name is declared in RateLimit-Policy")
                .containsAll(fields.states().keySet());
        return fields;
    }

    private static Map<String, Map<String, Long>> members(String field, String... required) {
        OuterList list = Parser.parseList(field);
        Map<String, Map<String, Long>> members = new LinkedHashMap<>();
        for (ListElement<?> element : list.get()) {
            assertThat(element).as("a member of %s", field).isInstanceOf(StringItem.class);
            StringItem item = (StringItem) element;
            Map<String, Long> parameters = new LinkedHashMap<>();
            item.getParams()
                    .forEach((name, value) -> parameters.put(name, ((Number) ((Item<?>) value).get()).longValue()));
            for (String parameter : required) {
                assertThat(parameters).as("%s of %s", parameter, item.get()).containsKey(parameter);
            }
            assertThat(members.put(item.get(), parameters))
                    .as("the name %s is unique in %s", item.get(), field)
                    .isNull();
        }
        return members;
    }

    public List<String> names() {
        return List.copyOf(states.keySet());
    }

    public long remaining(String name) {
        return parameter(states, name, "r");
    }

    public long reset(String name) {
        return parameter(states, name, "t");
    }

    public long quota(String name) {
        return parameter(policies, name, "q");
    }

    public long window(String name) {
        return parameter(policies, name, "w");
    }

    private static long parameter(Map<String, Map<String, Long>> items, String name, String parameter) {
        Map<String, Long> item = items.get(name);
        Long value = item == null ? null : item.get(parameter);
        if (value == null) {
            throw new AssertionError("no " + parameter + " for " + name + " in " + items);
        }
        return value;
    }
}
