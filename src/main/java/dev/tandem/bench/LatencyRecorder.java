package dev.tandem.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Accumulates request latencies in an HdrHistogram (microsecond resolution, three significant digits)
 * together with the running sums of a least-squares fit of latency against send time. Thread-safe:
 * completions arrive on the HTTP client's event-loop threads.
 */
final class LatencyRecorder {

    private static final long HIGHEST_MICROS = 3_600_000_000L;

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);
    private long n;
    private double sx;
    private double sy;
    private double sxx;
    private double sxy;
    private long errors;
    private long incomplete;
    private long timeouts;
    /** Per second of send time: requests, the slowest (µs), and how many took over {@link #SLOW_MICROS}. */
    private final TreeMap<Long, long[]> bySecond = new TreeMap<>();
    /** A request slower than this counts as slow in the per-second timeline. */
    static final long SLOW_MICROS = 20_000;

    /**
     * Records one answered request.
     *
     * @param sentAtSeconds the (intended) send time, in seconds since the measurement began
     * @param latencyNanos from the (intended) send time to the end of the answer
     */
    synchronized void record(double sentAtSeconds, long latencyNanos) {
        long micros = Math.max(0, Math.min(HIGHEST_MICROS, latencyNanos / 1_000));
        histogram.recordValue(micros);
        long[] second = bySecond.computeIfAbsent((long) Math.floor(Math.max(0, sentAtSeconds)), k -> new long[3]);
        second[0]++;
        second[1] = Math.max(second[1], micros);
        second[2] += micros > SLOW_MICROS ? 1 : 0;
        double ms = latencyNanos / 1e6;
        n++;
        sx += sentAtSeconds;
        sy += ms;
        sxx += sentAtSeconds * sentAtSeconds;
        sxy += sentAtSeconds * ms;
    }

    /** Records a request still unanswered at the cut-off, at its age then (a lower bound of its latency). */
    synchronized void recordIncomplete(double sentAtSeconds, long ageNanos) {
        record(sentAtSeconds, ageNanos);
        incomplete++;
    }

    synchronized void error() {
        errors++;
    }

    /** Records a failed request; a request that timed out is also counted as a timeout. */
    synchronized void error(Throwable e) {
        errors++;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof io.netty.handler.timeout.ReadTimeoutException || t instanceof java.util.concurrent.TimeoutException) {
                timeouts++;
                break;
            }
        }
    }

    synchronized long count() {
        return n;
    }

    /** The summary over a measured interval of {@code seconds}. */
    synchronized LatencySummary summary(double seconds) {
        long count = histogram.getTotalCount();
        Double slope = null;
        if (n >= 2) {
            double d = n * sxx - sx * sx;
            slope = d == 0 ? 0.0 : (n * sxy - sx * sy) / d;
        }
        return new LatencySummary(count, errors, timeouts, incomplete, seconds > 0 ? count / seconds : 0,
                percentile(0.50), percentile(0.95), percentile(0.99), percentile(0.999),
                count == 0 ? null : histogram.getMaxValue() / 1e3, slope, timeline());
    }

    /** The per-second timeline: {@code [second, requests, max ms, requests over 20 ms]} for each second with a request. */
    private List<double[]> timeline() {
        List<double[]> out = new ArrayList<>(bySecond.size());
        bySecond.forEach((second, v) -> out.add(new double[] {second, v[0], v[1] / 1e3, v[2]}));
        return out;
    }

    /** The {@code q} quantile in milliseconds, or {@code null} with fewer than {@code 10 / (1 - q)} samples. */
    private Double percentile(double q) {
        long needed = (long) Math.ceil(10.0 / (1.0 - q) - 1e-9);
        if (histogram.getTotalCount() < needed) {
            return null;
        }
        return histogram.getValueAtPercentile(q * 100.0) / 1e3;
    }
}
