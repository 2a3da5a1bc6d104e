package dev.tandem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps maintenance saturated: each of its loops makes a heavy build over the large table, waits until it
 * is complete, undoes it and starts over. By default ({@link #HydrationChurn(int, int)}) a build is an
 * index on one of the views {@code big_count} and {@code big_self_join} (alternating), made through the
 * REST API with its own HTTP client, and complete once hydrated; other systems and paths give their own
 * {@link Loop} ({@link SqlChurn}).
 */
final class HydrationChurn implements AutoCloseable {

    private static final List<String> VIEWS = List.of("big_count", "big_self_join");

    /** One churn loop's builds: build {@code n} is started, awaited until complete, then undone. */
    interface Loop extends AutoCloseable {

        /** Starts build {@code n}; returns once it is under way (or done). */
        void start(long n);

        /** Waits until build {@code n} is complete; false when {@code stop} said to give up first. */
        boolean await(long n, BooleanSupplier stop);

        /** Undoes build {@code n}, complete or given up on. */
        void drop(long n);

        /** Releases what the loop holds (its connection). */
        @Override
        void close();
    }

    private final AutoCloseable shared;
    private final List<Thread> loops = new ArrayList<>();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong hydrated = new AtomicLong();
    private final long startNanos = System.nanoTime();
    /** Each index the churn built: {@code [loop, seconds from the churn's start to creation, to hydrated (or -1)]}. */
    private final List<double[]> timeline = Collections.synchronizedList(new ArrayList<>());
    private volatile long hydratedBeforeWindow;
    private volatile boolean stopped;
    private volatile RuntimeException failure;

    /** Starts {@code loops} churn loops of REST indexes on {@code big_count} and {@code big_self_join} on the server on {@code port}. */
    HydrationChurn(int port, int loops) {
        this(new BenchHttp(port, "churn", Math.max(2, loops)), loops);
    }

    private HydrationChurn(BenchHttp http, int loops) {
        this(loops, loop -> restIndexes(http, loop), http);
    }

    /**
     * Starts {@code loops} churn loops, loop {@code i} on its own thread with the {@link Loop} that
     * {@code loop.apply(i)} makes there; {@code shared} is closed after the loops have ended.
     */
    HydrationChurn(int loops, IntFunction<Loop> loop, AutoCloseable shared) {
        this.shared = shared;
        for (int i = 0; i < loops; i++) {
            int index = i;
            Thread t = Thread.ofPlatform().name("tandem-bench-churn-" + i).daemon().start(() -> run(index, loop));
            this.loops.add(t);
        }
    }

    /** The REST churn: build {@code n} of loop {@code loop} is index {@code churn_<loop>_<n>}, alternating views. */
    private static Loop restIndexes(BenchHttp http, int loop) {
        return new Loop() {
            @Override
            public void start(long n) {
                BenchWorkload.createIndex(http, index(n), VIEWS.get((int) ((loop + n) % VIEWS.size())), "c0");
            }

            @Override
            public boolean await(long n, BooleanSupplier stop) {
                return BenchWorkload.awaitHydrated(http, index(n), Duration.ofHours(1), stop::getAsBoolean) >= 0;
            }

            @Override
            public void drop(long n) {
                http.delete("/v1/indexes/" + index(n));
            }

            @Override
            public void close() {
            }

            private String index(long n) {
                return "churn_" + loop + "_" + n;
            }
        };
    }

    private void run(int index, IntFunction<Loop> factory) {
        try (Loop loop = factory.apply(index)) {
            for (long n = 0; !stopped; n++) {
                double createdAt = sinceStart();
                loop.start(n);
                created.incrementAndGet();
                boolean complete = loop.await(n, () -> stopped);
                if (complete) {
                    hydrated.incrementAndGet();
                }
                timeline.add(new double[] {index, createdAt, complete ? sinceStart() : -1});
                loop.drop(n);
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
        openWindow(warmUp, arm);
    }

    /** Marks the measured window's start, after a warm-up of {@code warmUp} that ran elsewhere; notes it in {@code arm}. */
    void openWindow(Duration warmUp, ObjectNode arm) {
        hydratedBeforeWindow = hydrated.get();
        arm.put("churn_warmup_s", warmUp.toMillis() / 1000.0);
        arm.put("churn_indexes_hydrated_before_window", hydratedBeforeWindow);
        arm.put("window_opened_at_churn_s", sinceStart());
    }

    /** Indexes hydrated before the window opened ({@link #warmUp}). */
    long hydratedBeforeWindow() {
        return hydratedBeforeWindow;
    }

    /** Builds completed since the window opened ({@link #openWindow}). */
    long hydratedInWindow() {
        return hydrated.get() - hydratedBeforeWindow;
    }

    /** Writes what the churn did: indexes created in all, hydrated in the window, and when each was built. */
    void writeTo(ObjectNode arm) {
        arm.put("churn_indexes_created", created.get());
        arm.put("churn_indexes_hydrated", hydratedInWindow());
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
        try {
            shared.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot close the churn's client: " + e.getMessage(), e);
        }
        check();
    }
}
