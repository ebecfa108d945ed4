package io.github.ratelimit.redis;

/** What an error from Redis or Redisson says: a configuration error (it must fail loudly) or a failed call. */
final class RedisErrors {

    private RedisErrors() {}

    /** Authentication refused: a wrong password, which no retry fixes (a refused command is {@code AclRefusals}'). */
    static boolean isConfigurationError(Throwable error) {
        return anyCauseSays(error, "NOAUTH", "WRONGPASS");
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
