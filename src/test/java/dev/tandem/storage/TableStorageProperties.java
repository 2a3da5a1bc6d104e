package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.accumulate;
import static dev.tandem.storage.StorageTesting.kv;
import static dev.tandem.storage.StorageTesting.model;
import static dev.tandem.storage.StorageTesting.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Random writes (inserts, deletes, explicit diffs) under a clock that jumps back and forth: for every
 * {@code as_of}, a subscription's snapshot plus its later updates accumulate, at every timestamp, to what
 * a naive model of the acknowledged writes holds; also after log compaction and after recovery.
 */
class TableStorageProperties {

    /** One update: a key in 0..4 and a non-zero diff in -2..2. */
    record Change(int key, int diff) {
    }

    @Provide
    Arbitrary<List<List<Change>>> writes() {
        Arbitrary<Change> change = net.jqwik.api.Combinators.combine(
                        Arbitraries.integers().between(0, 4),
                        Arbitraries.of(-2, -1, 1, 1, 1, 2))
                .as(Change::new);
        return change.list().ofMinSize(1).ofMaxSize(5).list().ofMinSize(1).ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<Integer>> clockSteps() {
        return Arbitraries.integers().between(-3, 4).list().ofSize(12);
    }

    @Property(tries = 60)
    void snapshotPlusUpdatesEqualTheModelAtEveryTime(@ForAll("writes") List<List<Change>> writes,
                                                     @ForAll("clockSteps") List<Integer> clockSteps,
                                                     @ForAll @IntRange(min = 0, max = 12) int compactAfter,
                                                     @ForAll boolean durable) throws IOException {
        AtomicLong clock = new AtomicLong(100);
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        StorageOptions options = StorageOptions.defaults(time).withClock(clock::get).withFsync(false);
        Path dir = durable ? Files.createTempDirectory("tandem-prop") : null;
        TableStorage storage = durable ? TableStorages.durable(dir, options) : TableStorages.inMemory(options);
        try {
            storage.createTable("u1", KV);
            List<TableUpdate> acked = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            for (int i = 0; i < writes.size(); i++) {
                clock.addAndGet(clockSteps.get(i));
                List<RowDiff> diffs = writes.get(i).stream().map(c -> new RowDiff(kv(c.key(), "v" + c.key() % 2), c.diff())).toList();
                if (goesNegative(acked, diffs)) {
                    // a table is a multiset: the write is refused whole and changes nothing
                    TableStorage refusing = storage;
                    assertThatThrownBy(() -> refusing.write("u1", diffs).block(Duration.ofSeconds(10)))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("but the table holds");
                    continue;
                }
                long ts = storage.write("u1", diffs).block(Duration.ofSeconds(10));
                if (!times.isEmpty()) {
                    assertThat(ts).isGreaterThan(times.getLast());
                }
                times.add(ts);
                diffs.forEach(d -> acked.add(new TableUpdate(d.row(), ts, d.diff())));
            }
            if (times.isEmpty()) {
                assertThat(storage.lastWriteTime()).as("every write was refused").isEqualTo(-1);
                return;
            }
            long first = times.getFirst() - 1;
            long last = times.getLast();
            long since = 0;
            if (compactAfter < times.size()) {
                since = times.get(compactAfter);
                storage.allowCompaction("u1", Frontier.at(since));
                storage.compact();
            }
            if (durable) {
                storage.close();
                storage = TableStorages.durable(dir, options);
                assertThat(storage.lastWriteTime()).isEqualTo(last);
                assertThat(storage.since("u1").time()).isEqualTo(since);
            }
            for (long asOf = Math.max(first, since); asOf <= last; asOf++) {
                List<TableEvent> events = read(storage, "u1", asOf, last);
                for (long t = asOf; t <= last + 1; t++) {
                    assertThat(accumulate(events, t)).as("as_of %d, at %d", asOf, t).isEqualTo(model(acked, t));
                }
            }
        } finally {
            storage.close();
            time.dispose();
            if (dir != null) {
                try (Stream<Path> files = Files.walk(dir)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /** Whether applying {@code diffs} after {@code acked} leaves some row with a negative count (naively). */
    private static boolean goesNegative(List<TableUpdate> acked, List<RowDiff> diffs) {
        java.util.Map<Row, Long> counts = new java.util.HashMap<>();
        acked.forEach(u -> counts.merge(u.row(), u.diff(), Long::sum));
        diffs.forEach(d -> counts.merge(d.row(), d.diff(), Long::sum));
        return counts.values().stream().anyMatch(c -> c < 0);
    }
}
