package io.github.ratelimit.core.internal;

import java.lang.management.ManagementFactory;

/** How an instance is named to operators listing its locks, whichever store holds them. */
public final class LockHolders {

    private LockHolders() {}

    /** The application's name, if any, and the JVM's {@code pid@host}, at most 200 characters. */
    public static String of(String applicationName) {
        String process = ManagementFactory.getRuntimeMXBean().getName();
        String holder = applicationName.isBlank() ? process : applicationName + " " + process;
        return holder.length() > 200 ? holder.substring(0, 200) : holder;
    }
}
