package io.github.ratelimit.redis;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** What an error from Redis or Redisson says: a configuration error (it must fail loudly) or a failed call. */
final class RedisErrors {

    private static final Pattern SCRIPTING_MISSING =
            Pattern.compile("(?i)unknown command [`'\"]?(eval|evalsha|eval_ro|evalsha_ro|script)[`'\"]");
    private static final Pattern REFUSED_COMMAND = Pattern.compile("permissions to run the '([^']+)' command");

    private RedisErrors() {}

    /** Authentication or permission refused: a wrong password or ACL, which no retry fixes. */
    static boolean isConfigurationError(Throwable error) {
        return anyCauseSays(error, "NOAUTH", "WRONGPASS", "NOPERM");
    }

    /**
     * The first line of a refusal of what the limiter needs, or null for any other error: an ACL that refuses a
     * command, a key or a channel ({@code NOPERM}), or a server on which scripting is not there ({@code unknown
     * command} for a script command). No retry fixes these; the server's configuration does.
     */
    static @Nullable String refusal(Throwable error) {
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
    static @Nullable String allowing(String refusal, String user) {
        Matcher command = REFUSED_COMMAND.matcher(refusal);
        return command.find() ? "ACL SETUSER " + user + " +" + command.group(1).toLowerCase(Locale.ROOT) : null;
    }

    /** Whether the message of the error or of one of its causes contains one of the words. */
    static boolean anyCauseSays(Throwable error, String... words) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null) {
                for (String word : words) {
                    if (message.contains(word)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
