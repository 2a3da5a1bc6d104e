package dev.tandem.controller;

import dev.tandem.api.JsonRequests;
import dev.tandem.api.ReadJson;
import static dev.tandem.controller.ControllerTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads without {@code as_of} choose their time and hold it atomically with respect to the compaction
 * tick: with a zero compaction window and writes moving the frontiers all the time, no such read is
 * ever refused as being before the compaction frontier, on the fast path (index holds) or the slow
 * path (table holds).
 */
class ReadHoldRaceTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void readsWithoutAsOfAreNeverBeforeTheCompactionFrontier() throws Exception {
        ControllerSettings settings = new ControllerSettings(Duration.ZERO, 4096, 100_000, Duration.ofSeconds(30));
        try (ControllerStack s = new ControllerStack(dir, true, 1, settings)) {
            Controller c = s.controller;
            c.createTable("t", List.of(new Column("k", DatumType.INT64, false)));
            c.createTable("u", List.of(new Column("k", DatumType.INT64, false)));
            JsonRequests.write(c, "t", json("[[0]]"), null).block();
            JsonRequests.write(c, "u", json("[[0]]"), null).block();
            c.createIndex("t_k", "t", List.of("k"), null);
            await().atMost(Duration.ofSeconds(30)).until(() -> c.indexStatus("t_k").hydrated());

            AtomicBoolean writing = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Throwable> refused = new ConcurrentLinkedQueue<>();
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                Future<?> writer = pool.submit(() -> {
                    for (long k = 1; writing.get(); k++) {
                        JsonRequests.write(c, k % 2 == 0 ? "t" : "u", json("[[" + k + "]]"), null).block(Duration.ofSeconds(30));
                    }
                });
                List<Future<?>> readers = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    readers.add(pool.submit(() -> {
                        for (int i = 0; i < 600; i++) {
                            read(c, new ReadJson("t_k", null, json("[[0]]"), null, null, null, null, null, null, null, null), refused);
                        }
                    }));
                }
                readers.add(pool.submit(() -> {
                    for (int i = 0; i < 60; i++) {
                        read(c, new ReadJson("u", null, null, null, null, null, 1L, null, null, null, null), refused);
                    }
                }));
                for (Future<?> f : readers) {
                    f.get(150, TimeUnit.SECONDS);
                }
                writing.set(false);
                writer.get(30, TimeUnit.SECONDS);
            } finally {
                writing.set(false);
                pool.shutdownNow();
            }
            assertThat(refused).as("reads refused as before the compaction frontier").isEmpty();
        }
    }

    private static void read(Controller c, ReadJson req, ConcurrentLinkedQueue<Throwable> refused) {
        try {
            JsonRequests.read(c, req).block(Duration.ofSeconds(30));
        } catch (ControllerException e) {
            if (e.kind() == ControllerException.Kind.BEFORE_SINCE) {
                refused.add(e);
            } else {
                throw e;
            }
        }
    }
}
