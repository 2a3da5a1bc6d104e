package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Reads hold their time and compaction moves {@code since} without a lock between them, and still no
 * read is left holding a time that compaction is allowed to pass: forced interleavings, then threads racing.
 */
class HeldFrontierTest {

    @Test
    void aReadWhoseTimeCompactionPassesBeforeItsHoldChoosesAgain() {
        HeldFrontier f = new HeldFrontier(Frontier.at(10));
        AtomicLong calls = new AtomicLong();
        long[] held = f.chooseAndHold(() -> {
            long t = f.since().time();
            if (calls.incrementAndGet() == 1) {
                // compaction runs after the read chose its time and before it holds it
                assertThat(f.compactTo(20)).isEqualTo(Frontier.at(20));
            }
            return t;
        });
        assertThat(calls.get()).isEqualTo(2);
        assertThat(held[0]).isEqualTo(20);
        assertThat(f.since().time()).isLessThanOrEqualTo(held[0]);
    }

    @Test
    void compactionStopsAtTheEarliestHold() {
        HeldFrontier f = new HeldFrontier(Frontier.at(0));
        long[] a = f.chooseAndHold(() -> 5);
        long[] b = f.chooseAndHold(() -> 8);
        assertThat(f.compactTo(100)).isEqualTo(Frontier.at(5));
        assertThat(f.compactTo(100)).isNull();
        f.holds.remove(a[1]);
        assertThat(f.compactTo(100)).isEqualTo(Frontier.at(8));
        f.holds.remove(b[1]);
        assertThat(f.compactTo(100)).isEqualTo(Frontier.at(100));
        assertThat(f.compactTo(50)).isNull();
        assertThat(f.since()).isEqualTo(Frontier.at(100));
    }

    @Test
    void racingReadsNeverHoldATimeCompactionIsAllowedToPass() throws InterruptedException {
        HeldFrontier f = new HeldFrontier(Frontier.at(0));
        // what compaction told compute it may compact to
        AtomicLong allowed = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> violation = new AtomicReference<>();
        AtomicLong reads = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 3; r++) {
            Thread reader = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < 50_000 && !stop.get(); i++) {
                    long[] held = f.chooseAndHold(() -> f.since().time() + random.nextInt(3));
                    for (int look = 0; look < 3; look++) {
                        long passed = allowed.get();
                        if (passed > held[0]) {
                            violation.compareAndSet(null, "a read holds " + held[0] + " but compaction was allowed to " + passed);
                        }
                    }
                    f.holds.remove(held[1]);
                    reads.incrementAndGet();
                }
            });
            readers.add(reader);
            reader.start();
        }
        Thread compactor = new Thread(() -> {
            long limit = 0;
            while (!stop.get()) {
                limit += 1 + ThreadLocalRandom.current().nextInt(2);
                Frontier next = f.compactTo(limit);
                if (next != null) {
                    allowed.set(next.time());
                }
            }
        });
        compactor.start();
        for (Thread reader : readers) {
            reader.join(60_000);
        }
        stop.set(true);
        compactor.join(10_000);
        assertThat(violation.get()).isNull();
        assertThat(reads.get()).isEqualTo(150_000);
        // compaction did move while reads held times
        assertThat(allowed.get()).isPositive();
    }
}
