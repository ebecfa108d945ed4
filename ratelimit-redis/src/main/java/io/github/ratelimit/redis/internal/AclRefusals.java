package io.github.ratelimit.redis.internal;

import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server refuses of the limiter, named: an ACL that refuses a command, a key or a channel ({@code NOPERM}), or a
 * server on which scripting is not there. No retry fixes these; the server's configuration does, so they are told
 * with the user and the ACL rule that would allow them. The connection's first attempt reads scripts' refusals here,
 * the capabilities their subscriptions'.
 */
public final class AclRefusals {

    private static final Logger log = LoggerFactory.getLogger(AclRefusals.class);
    private static final Pattern SCRIPTING_MISSING =
            Pattern.compile("(?i)unknown command [`'\"]?(eval|evalsha|eval_ro|evalsha_ro|script)[`'\"]");
    private static final Pattern REFUSED_COMMAND = Pattern.compile("permissions to run the '([^']+)' command");
    /** How a refusal is told, in every log line and message of one. */
    public static final String REFUSES = "refuses the limiter's commands";

    /** Where an operator finds what to allow. */
    private static final String WHAT_TO_ALLOW =
            "docs/operations.md lists every command, key pattern and channel the limiter uses";

    /** The channels whose refused subscription was logged, once each per JVM. */
    private static final Set<String> TOLD = ConcurrentHashMap.newKeySet();

    private AclRefusals() {}

    /**
     * The first line of a refusal of what the limiter needs, without what Redisson adds (the connection, the command),
     * or null for any other error.
     */
    public static @Nullable String refusal(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message == null) {
                continue;
            }
            String line = message.lines().findFirst().orElse("");
            int redisson = line.indexOf(". channel: "); // Redisson adds the connection and the command
            if (redisson >= 0) {
                line = line.substring(0, redisson);
            }
            int noperm = line.indexOf("NOPERM");
            if (noperm >= 0) {
                return line.substring(noperm);
            }
            if (SCRIPTING_MISSING.matcher(line).find()) {
                return line;
            }
        }
        return null;
    }

    /** The ACL rule that would allow the command {@code refusal} names to the user, or null when it names none. */
    public static @Nullable String allowing(String refusal, String user) {
        Matcher command = REFUSED_COMMAND.matcher(refusal);
        return command.find() ? "ACL SETUSER " + user + " +" + command.group(1).toLowerCase(Locale.ROOT) : null;
    }

    /**
     * What Redis refused, for which user, and what would allow it: the ACL rule for a refused command, a server with
     * scripting where it has none.
     */
    public static String describe(String refusal, String user) {
        String allowing = allowing(refusal, user);
        if (allowing != null) {
            return "user '" + user + "' may not run a command the limiter sends (" + refusal + "); allow it with "
                    + allowing + " (" + WHAT_TO_ALLOW + ")";
        }
        if (refusal.startsWith("NOPERM")) {
            return "user '" + user + "' is refused what the limiter needs (" + refusal + "); " + WHAT_TO_ALLOW;
        }
        return "the server runs no Lua scripts (" + refusal + "), and every decision of the limiter is one; use a"
                + " server with scripting (on Valkey 9.1 and later, load its Lua module)";
    }

    /** The user a client authenticates as: the one configured (on the client or on its servers), or {@code default}. */
    @SuppressWarnings("deprecation") // a client configured the old way, on its servers, is named right too
    public static String user(RedissonClient client) {
        var config = client.getConfig();
        String user = config.getUsername();
        if (user != null && !user.isEmpty()) {
            return user;
        }
        if (config.isClusterConfig()) {
            user = config.useClusterServers().getUsername();
        } else if (config.isSentinelConfig()) {
            user = config.useSentinelServers().getUsername();
        } else {
            user = config.useSingleServer().getUsername();
        }
        return user == null || user.isEmpty() ? "default" : user;
    }

    /**
     * A subscription failed: when Redis refused it, says so once per channel at WARN, with the user and the rule that
     * allows it; any other failure is the caller's to retry. Redisson does not hand a subscription's {@code NOPERM} to
     * its caller (it logs it and times out), so a failure that does not say why is asked again as a {@code PUBLISH} to
     * a channel beside it that nobody hears ({@code <channel>:acl-check}), whose refusal Redis does say; never waited
     * for.
     *
     * @param without what the capability does without the channel, for the log
     */
    public static void subscriptionFailed(RedissonClient client, String channel, Throwable error, String without) {
        String refused = refusal(error);
        if (refused != null) {
            tell(client, channel, refused, without);
        } else if (!TOLD.contains(channel) && !client.isShutdown()) {
            try {
                client.getTopic(channel + ":acl-check", StringCodec.INSTANCE)
                        .publishAsync("")
                        .whenComplete((heard, failed) -> {
                            String publishRefused = failed == null ? null : refusal(failed);
                            if (publishRefused != null) {
                                tell(client, channel, publishRefused, without);
                            }
                        });
            } catch (RuntimeException e) {
                // the client is closing: nothing to tell
            }
        }
    }

    private static void tell(RedissonClient client, String channel, String refused, String without) {
        if (TOLD.add(channel)) {
            String user = user(client);
            log.warn(
                    "Redis refuses user '{}' the subscription to channel '{}' ({}); allow it with ACL SETUSER {} &{}"
                            + " ({}); until then, {}",
                    user,
                    channel,
                    refused,
                    user,
                    channel,
                    WHAT_TO_ALLOW,
                    without);
        }
    }
}
