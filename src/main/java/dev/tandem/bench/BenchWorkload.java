package dev.tandem.bench;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The data of the benchmarks, loaded through the public API: a large table {@code big(id, g, v)} and a
 * small table {@code points(id, v)} with a point index {@code points_by_id}; views over {@code big}
 * whose indexes make heavy hydrations: {@code big_count} (count and sum by {@code g}) and
 * {@code big_self_join} (big joined with itself on {@code id}).
 */
final class BenchWorkload {

    static final int BATCH_ROWS = 10_000;
    static final int GROUPS = 10_000;
    static final String POINT_INDEX = "points_by_id";

    private BenchWorkload() {
    }

    static void createBigTable(BenchHttp http) {
        http.postJson("/v1/tables", """
                {"name":"big","columns":[{"name":"id","type":"int64","nullable":false},\
                {"name":"g","type":"int64","nullable":false},{"name":"v","type":"int64","nullable":false}]}""");
    }

    static void createPointsTable(BenchHttp http) {
        http.postJson("/v1/tables", """
                {"name":"points","columns":[{"name":"id","type":"int64","nullable":false},\
                {"name":"v","type":"int64","nullable":false}]}""");
    }

    /** Inserts rows {@code 0..rows-1} of {@code big} in requests of {@value #BATCH_ROWS} rows. */
    static void loadBig(BenchHttp http, long rows) {
        for (long from = 0; from < rows; from += BATCH_ROWS) {
            long to = Math.min(rows, from + BATCH_ROWS);
            StringBuilder b = new StringBuilder(32 * BATCH_ROWS).append("{\"insert\":[");
            for (long i = from; i < to; i++) {
                if (i > from) {
                    b.append(',');
                }
                b.append('[').append(i).append(',').append(i % GROUPS).append(',').append(value(i)).append(']');
            }
            http.postJson("/v1/tables/big/rows", b.append("]}").toString());
        }
    }

    /** Inserts rows {@code 0..rows-1} of {@code points} in requests of {@value #BATCH_ROWS} rows. */
    static void loadPoints(BenchHttp http, long rows) {
        for (long from = 0; from < rows; from += BATCH_ROWS) {
            long to = Math.min(rows, from + BATCH_ROWS);
            StringBuilder b = new StringBuilder(24 * BATCH_ROWS).append("{\"insert\":[");
            for (long i = from; i < to; i++) {
                if (i > from) {
                    b.append(',');
                }
                b.append('[').append(i).append(',').append(value(i)).append(']');
            }
            http.postJson("/v1/tables/points/rows", b.append("]}").toString());
        }
    }

    static void createChurnViews(BenchHttp http) {
        http.postJson("/v1/views", """
                {"name":"big_count","plan":{"op":"reduce","input":{"op":"get","name":"big"},"group_key":[1],\
                "aggregates":[{"func":"count"},{"func":"sum","expr":{"col":2}}]},"columns":["c0","c1","c2"]}""");
        http.postJson("/v1/views", """
                {"name":"big_self_join","plan":{"op":"join","inputs":[{"op":"get","name":"big"},{"op":"get","name":"big"}],\
                "on":[[[0,0],[1,0]]]},"columns":["c0","c1","c2","c3","c4","c5"]}""");
    }

    static void createIndex(BenchHttp http, String name, String on, String key) {
        http.postJson("/v1/indexes", "{\"name\":\"" + name + "\",\"on\":\"" + on + "\",\"key\":[\"" + key + "\"]}");
    }

    /** Creates the point index on {@code points} and waits until it is hydrated. */
    static void createPointIndex(BenchHttp http) {
        createIndex(http, POINT_INDEX, "points", "id");
        awaitHydrated(http, POINT_INDEX, Duration.ofMinutes(10), () -> false);
    }

    /**
     * Polls the index's status until it is hydrated; returns the seconds from the call, or -1 when
     * {@code stop} said to give up first.
     */
    static double awaitHydrated(BenchHttp http, String index, Duration timeout, Supplier<Boolean> stop) {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (true) {
            if (http.getJson("/v1/indexes/" + index).path("hydrated").asBoolean(false)) {
                return (System.nanoTime() - start) / 1e9;
            }
            if (stop.get()) {
                return -1;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("index " + index + " did not hydrate within " + timeout);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1;
            }
        }
    }

    /** One point lookup of a random existing key of {@code points} (fast path, serializable). */
    static Supplier<Mono<Integer>> pointLookup(BenchHttp http, long pointRows) {
        return () -> http.status("/v1/indexes/" + POINT_INDEX + "/rows?isolation=serializable&key=" + ThreadLocalRandom.current().nextLong(pointRows));
    }

    /** Column {@code v} of row {@code i} of {@code big} and of {@code points}. */
    static long value(long i) {
        return mix(i) % 1_000_000;
    }

    /** A bijective 64-bit mix, so values look random but are reproducible. */
    static long mix(long x) {
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return (x ^ (x >>> 31)) & Long.MAX_VALUE;
    }
}
