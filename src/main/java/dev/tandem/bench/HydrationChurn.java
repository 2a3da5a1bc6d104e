package dev.tandem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps maintenance saturated: each of its loops creates an index on a heavy view over the large table,
 * waits until it has hydrated, drops it and starts over, alternating views. Uses its own HTTP client.
 */
final class HydrationChurn implements AutoCloseable {

    private static final List<String> VIEWS = List.of("big_count", "big_self_join");

    private final BenchHttp http;
    private final List<Thread> loops = new ArrayList<>();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong hydrated = new AtomicLong();
    private final long startNanos = System.nanoTime();
    /** Each index the churn built: {@code [loop, seconds from the churn's start to creation, to hydrated (or -1)]}. */
    private final java.util.List<double[]> timeline = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    private volatile boolean stopped;
    private volatile RuntimeException failure;

    /** Starts {@code loops} churn loops against the server on {@code port}. */
    HydrationChurn(int port, int loops) {
        this.http = new BenchHttp(port, "churn", Math.max(2, loops));
        for (int i = 0; i < loops; i++) {
            int loop = i;
            Thread t = Thread.ofPlatform().name("tandem-bench-churn-" + i).daemon().start(() -> run(loop));
            this.loops.add(t);
        }
    }

    private void run(int loop) {
        long n = 0;
        try {
            while (!stopped) {
                String view = VIEWS.get((int) ((loop + n) % VIEWS.size()));
                String index = "churn_" + loop + "_" + n++;
                double createdAt = sinceStart();
                BenchWorkload.createIndex(http, index, view, "c0");
                created.incrementAndGet();
                double seconds = BenchWorkload.awaitHydrated(http, index, Duration.ofHours(1), () -> stopped);
                if (seconds >= 0) {
                    hydrated.incrementAndGet();
                }
                timeline.add(new double[] {loop, createdAt, seconds >= 0 ? sinceStart() : -1});
                http.delete("/v1/indexes/" + index);
            }
        } catch (RuntimeException e) {
            if (!stopped) {
                failure = e;
            }
        }
    }

    /** Waits until every loop has created its first index, so hydration is under way. */
    void awaitStarted() {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (created.get() < loops.size() && failure == null && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        check();
    }

    /** Seconds since the churn started, to the millisecond. */
    double sinceStart() {
        return Math.round((System.nanoTime() - startNanos) / 1e6) / 1e3;
    }

    /** The indexes built so far, as {@code [loop, created at s, hydrated at s or -1]} from the churn's start. */
    java.util.List<double[]> timeline() {
        synchronized (timeline) {
            return java.util.List.copyOf(timeline);
        }
    }

    long created() {
        return created.get();
    }

    long hydrated() {
        return hydrated.get();
    }

    private void check() {
        if (failure != null) {
            throw new IllegalStateException("hydration churn failed: " + failure.getMessage(), failure);
        }
    }

    /** Stops the loops (each drops the index it has in flight) and fails if one of them failed. */
    @Override
    public void close() {
        stopped = true;
        for (Thread t : loops) {
            try {
                t.join(Duration.ofMinutes(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        http.close();
        check();
    }
}
