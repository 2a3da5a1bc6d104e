package dev.tandem.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Readers on other threads take snapshots and check accumulations while one writer inserts, merges and
 * compacts behind the readers' holds: no torn or wrong read is ever seen.
 */
class ConcurrentSnapshotTest {

    static final int KEYS = 64;
    static final int STEPS = 2_000;
    static final long READS = 1_000;

    @Test
    void readersSeeExactAccumulationsWhileTheWriterMergesAndCompacts() throws Exception {
        Spine spine = new Spine("shared", Frontier.at(1));
        // At every time t >= 1 each key k holds exactly one value, t, with multiplicity 1.
        ReadHold writerHold = spine.acquireHold("writer", Frontier.at(0));
        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicLong reads = new AtomicLong();
        CountDownLatch started = new CountDownLatch(3);
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            Thread reader = new Thread(() -> {
                started.countDown();
                try {
                    readUntilStopped(spine, stop, reads, failures);
                } catch (Throwable e) {
                    failures.add("reader died: " + e);
                }
            });
            reader.setDaemon(true);
            reader.start();
            readers.add(reader);
        }
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        // A fixed amount of writing, and at least READS reads overlapping it; a reader that dies or a
        // read count that stops growing fails the test instead of hanging it.
        long hardDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long t = 1;
        try {
            while (t <= STEPS || reads.get() < READS) {
                assertThat(failures).as("failures while writing step %d", t).isEmpty();
                assertThat(readers).as("readers alive at step %d", t).allMatch(Thread::isAlive);
                assertThat(System.nanoTime()).as("%d reads after %d steps within 60 s", reads.get(), t).isLessThan(hardDeadline);
                BatchBuilder b = new BatchBuilder();
                for (long k = 0; k < KEYS; k++) {
                    b.add(Row.of(k), Row.of(t), t, 1);
                    if (t > 1) {
                        b.add(Row.of(k), Row.of(t - 1), t, -1);
                    }
                }
                spine.insert(b.build(Frontier.at(t), Frontier.at(t + 1), spine.since()));
                writerHold.downgrade(Frontier.at(Math.max(0, t - 2)));
                spine.work(500);
                t++;
            }
        } finally {
            stop.set(true);
        }
        for (Thread reader : readers) {
            reader.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(reader.isAlive()).as("reader stopped").isFalse();
        }
        assertThat(failures).isEmpty();
        assertThat(reads.get()).isGreaterThanOrEqualTo(READS);
        // Compaction really happened: memory stays far below the history written.
        spine.compactFully();
        assertThat(spine.holds()).as("only the writer's hold is left").hasSize(1);
        assertThat(spine.since().time()).isGreaterThanOrEqualTo(t - 3);
        assertThat(spine.snapshot().records()).isLessThan(t * KEYS / 4);
    }

    private static void readUntilStopped(Spine spine, AtomicBoolean stop, AtomicLong reads, ConcurrentLinkedQueue<String> failures) {
        while (!stop.get()) {
            TraceSnapshot first = spine.snapshot();
            if (first.upper().time() < 2) {
                continue;
            }
            long t = Math.max(first.since().time(), first.upper().time() - 1);
            try (ReadHold hold = spine.acquireHold("reader", Frontier.at(t))) {
                if (hold.frontier().time() != t) {
                    continue; // the trace compacted past t before the hold landed; reads at t are invalid
                }
                for (int i = 0; i < 5; i++) {
                    TraceSnapshot snap = spine.snapshot();
                    assertExact(snap, t, failures);
                    reads.incrementAndGet();
                }
            }
            // The first snapshot stays readable even after the hold is gone.
            assertExact(first, t, failures);
        }
    }

    private static void assertExact(TraceSnapshot snap, long t, ConcurrentLinkedQueue<String> failures) {
        if (snap.since().time() > t || snap.upper().time() <= t) {
            failures.add("snapshot " + snap.since() + ".." + snap.upper() + " cannot serve " + t);
            return;
        }
        long[] seen = new long[1];
        snap.scan(t, (k, v, d) -> {
            seen[0]++;
            if ((Long) v.get(0) != t || d != 1) {
                failures.add("at " + t + " key " + k + " has " + v + " x " + d);
            }
        });
        if (seen[0] != KEYS) {
            failures.add("at " + t + " saw " + seen[0] + " entries");
        }
    }
}
