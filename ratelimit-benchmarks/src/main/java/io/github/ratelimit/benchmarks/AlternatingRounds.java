package io.github.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a limit adds to an integration's call path: alternating rounds of the path without the limit and with it,
 * each round printed, then the median of what the limit added. Shared by the outbound, gRPC and Kafka benchmarks.
 */
final class AlternatingRounds {

    private AlternatingRounds() {}

    /** One round's figure of one path (a median latency, a time per record). */
    @FunctionalInterface
    interface Round {
        double take() throws Exception;
    }

    /**
     * Takes one warm-up round of each path, then {@code rounds} alternating rounds, and prints them.
     *
     * @param without how a round prints the path without the limit ({@code no rule})
     * @param with how it prints the path with it ({@code rule})
     * @param addedBy what the median line says added the difference ({@code the rule})
     * @param decimals the figures' decimals
     * @param unit the median's unit ({@code us})
     */
    static void print(
            int rounds,
            String without,
            String with,
            String addedBy,
            int decimals,
            String unit,
            Round plain,
            Round limited)
            throws Exception {
        plain.take(); // warm-up of both paths
        limited.take();
        String figure = "%7." + decimals + "f";
        String line = "  round %d: " + without + " " + figure + "   " + with + " " + figure + "   added %6." + decimals
                + "f%n";
        List<Double> added = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            double before = plain.take();
            double after = limited.take();
            added.add(after - before);
            System.out.printf(Locale.ROOT, line, round, before, after, after - before);
        }
        double[] sorted =
                added.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        System.out.printf(
                Locale.ROOT,
                "  median added by " + addedBy + ": %." + decimals + "f " + unit + "%n",
                sorted[sorted.length / 2]);
    }
}
