package dev.tandem.bench;

import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The figures of one measured stream of requests: how many completed, at what rate, the latency
 * percentiles (each {@code null} when it has fewer than {@code 10 / (1 - q)} samples), the maximum and
 * the least-squares slope of latency against intended send time, which reveals a growing backlog.
 *
 * @param count requests answered with 2xx (and, in open loop, requests still unanswered at the cut-off)
 * @param errors requests answered with a non-2xx status or failed in transport; not in the percentiles
 * @param timeouts the errors that were request timeouts (the answer did not come within the client's timeout)
 * @param incomplete open-loop requests still unanswered at the cut-off, counted at their age then
 * @param rate {@code count} per second of the measured interval
 * @param bySecond per second of (intended) send time: {@code [second, requests, max ms, requests over 20 ms]},
 *     so a tail can be placed in time (against the churn's hydrations, the JIT, a collection)
 */
record LatencySummary(long count, long errors, long timeouts, long incomplete, double rate, Double p50Ms, Double p95Ms, Double p99Ms,
        Double p999Ms, Double maxMs, Double slopeMsPerS, List<double[]> bySecond) {

    /** Writes the stable fields of an arm into {@code node}. */
    void writeTo(ObjectNode node) {
        node.put("count", count);
        node.put("rate", round(rate));
        put(node, "p50_ms", p50Ms);
        put(node, "p95_ms", p95Ms);
        put(node, "p99_ms", p99Ms);
        put(node, "p999_ms", p999Ms);
        put(node, "max_ms", maxMs);
        put(node, "slope_ms_per_s", slopeMsPerS);
        node.put("errors", errors);
        node.put("timeouts", timeouts);
        node.put("incomplete", incomplete);
        var seconds = node.putArray("by_second");
        for (double[] row : bySecond) {
            var r = seconds.addArray();
            r.add((long) row[0]).add((long) row[1]).add(round(row[2])).add((long) row[3]);
        }
    }

    static void put(ObjectNode node, String field, Double v) {
        if (v == null) {
            node.putNull(field);
        } else {
            node.put(field, round(v));
        }
    }

    /** Rounds to three decimals (microseconds when in milliseconds), for readable JSON. */
    static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
