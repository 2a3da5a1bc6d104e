package dev.tandem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

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
    private final List<double[]> timeline = Collections.synchronizedList(new ArrayList<>());
    private volatile long hydratedBeforeWindow;
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

    /**
     * Keeps {@code load} going at {@code rate}, unmeasured, for {@code warmUp} while the churn runs (its first
     * half minute is also the JIT's), then marks the window's start; notes the warm-up in {@code arm}.
     */
    void warmUp(Supplier<Mono<Integer>> load, double rate, Duration warmUp, ObjectNode arm) {
        if (!warmUp.isZero()) {
            LoadGenerator.openLoop(load, rate, warmUp, Duration.ofSeconds(30).plus(warmUp));
        }
        hydratedBeforeWindow = hydrated.get();
        arm.put("churn_warmup_s", warmUp.toMillis() / 1000.0);
        arm.put("churn_indexes_hydrated_before_window", hydratedBeforeWindow);
        arm.put("window_opened_at_churn_s", sinceStart());
    }

    /** Indexes hydrated before the window opened ({@link #warmUp}). */
    long hydratedBeforeWindow() {
        return hydratedBeforeWindow;
    }

    /** Writes what the churn did: indexes created in all, hydrated in the window, and when each was built. */
    void writeTo(ObjectNode arm) {
        arm.put("churn_indexes_created", created.get());
        arm.put("churn_indexes_hydrated", hydrated.get() - hydratedBeforeWindow);
        var rows = arm.putArray("churn_timeline");
        for (double[] e : timeline()) {
            rows.addArray().add((long) e[0]).add(e[1]).add(e[2]);
        }
    }

    /** Seconds since the churn started, to the millisecond. */
    private double sinceStart() {
        return Math.round((System.nanoTime() - startNanos) / 1e6) / 1e3;
    }

    /** The indexes built so far, as {@code [loop, created at s, hydrated at s or -1]} from the churn's start. */
    private List<double[]> timeline() {
        synchronized (timeline) {
            return List.copyOf(timeline);
        }
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
