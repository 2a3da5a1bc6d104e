package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.accumulate;
import static dev.tandem.storage.StorageTesting.kv;
import static dev.tandem.storage.StorageTesting.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Row;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A write to several tables at once ({@link TableStorage#writeTables}): one timestamp, one log record
 * with its catalog swap, refused whole when one table's part fails its checks, recovered and compacted
 * like any write, and the same over a shared log.
 */
class WriteTablesTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(10_000);
    private VirtualTimeScheduler time;
    private StorageOptions options;
    private TableStorage storage;

    @BeforeEach
    void open() {
        time = VirtualTimeScheduler.create();
        options = StorageOptions.defaults(time).withClock(clock::get);
        storage = TableStorages.durable(dir, options);
        storage.createTable("u1", KV);
        storage.createTable("u2", KV, List.of(new UniqueKey("u2_pkey", List.of(0), true)));
    }

    @AfterEach
    void close() {
        storage.close();
        time.dispose();
    }

    @Test
    void rowsAreLookedUpByTheKeyATableIsArrangedBy() {
        storage.writeTables(Map.of("u2", List.of(RowDiff.insert(kv(1, "one")), RowDiff.insert(kv(2, "two")))), null).block(WAIT);
        assertThat(storage.rowsWithKey("u2", Row.of(1L))).isEqualTo(Map.of(kv(1, "one"), 1L));
        assertThat(storage.rowsWithKey("u2", Row.of(3L))).isEmpty();
        // an update: the old row retracted, the new one there, as soon as the write completes
        storage.writeTables(Map.of("u2", List.of(new RowDiff(kv(1, "one"), -1), RowDiff.insert(kv(1, "uno")))), null).block(WAIT);
        assertThat(storage.rowsWithKey("u2", Row.of(1L))).isEqualTo(Map.of(kv(1, "uno"), 1L));
        storage.writeTables(Map.of("u2", List.of(new RowDiff(kv(2, "two"), -1))), null).block(WAIT);
        assertThat(storage.rowsWithKey("u2", Row.of(2L))).isEmpty();
        assertThatThrownBy(() -> storage.rowsWithKey("u1", Row.of(1L))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> storage.rowsWithKey("nosuch", Row.of(1L))).isInstanceOf(IllegalArgumentException.class);
    }

    private Map<Row, Long> contents(String id) {
        long t = storage.upper(id).time() - 1;
        return accumulate(read(storage, id, t, t), t);
    }

    @Test
    void bothTablesAtOneTimestampWithTheSwap() {
        long t = storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(1, "a"))), "u2", List.of(RowDiff.insert(kv(2, "b")))),
                new CatalogSwap("lsn", null, Map.of("lsn", "0/10"), List.of())).block(WAIT);
        // Each table's subscription sees its rows at that one time.
        for (String id : List.of("u1", "u2")) {
            List<TableUpdate> updates = StorageTesting.updatesOf(read(storage, id, t - 1, t));
            assertThat(updates).hasSize(1);
            assertThat(updates.get(0).time()).isEqualTo(t);
        }
        assertThat(storage.catalogEntries()).containsEntry("lsn", "0/10");

        storage.close();
        storage = TableStorages.durable(dir, options);
        assertThat(contents("u1")).isEqualTo(Map.of(kv(1, "a"), 1L));
        assertThat(contents("u2")).isEqualTo(Map.of(kv(2, "b"), 1L));
        assertThat(storage.catalogEntries()).containsEntry("lsn", "0/10");
        assertThat(storage.lastWriteTime()).isEqualTo(t);

        storage.compact();
        storage.close();
        storage = TableStorages.durable(dir, options);
        assertThat(contents("u1")).isEqualTo(Map.of(kv(1, "a"), 1L));
        assertThat(contents("u2")).isEqualTo(Map.of(kv(2, "b"), 1L));
        assertThat(storage.catalogEntries()).containsEntry("lsn", "0/10");
    }

    @Test
    void rowsWhoseKeysTheWriterGuaranteesAreNotCheckedButCountForLaterWrites() {
        CatalogSwap swap = new CatalogSwap("lsn", null, Map.of("lsn", "0/10"), List.of());
        storage.writeTablesKeysGuaranteed(Map.of("u2", List.of(RowDiff.insert(kv(1, "a")), RowDiff.insert(kv(2, "b")))), swap).block(WAIT);
        assertThat(contents("u2")).isEqualTo(Map.of(kv(1, "a"), 1L, kv(2, "b"), 1L));
        // everything but the keys is still checked: a delete of a row not held, a guard that moved
        assertThatThrownBy(() -> storage.writeTablesKeysGuaranteed(Map.of("u2", List.of(new RowDiff(kv(9, "x"), -1))), null).block(WAIT))
                .isInstanceOf(RowsGoneException.class);
        assertThatThrownBy(() -> storage.writeTablesKeysGuaranteed(Map.of("u2", List.of(RowDiff.insert(kv(3, "c")))),
                new CatalogSwap("lsn", null, Map.of("lsn", "0/20"), List.of())).block(WAIT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'lsn'");
        // a checked write after them meets their keys
        assertThatThrownBy(() -> storage.writeTables(Map.of("u2", List.of(RowDiff.insert(kv(2, "y")))), null).block(WAIT))
                .isInstanceOf(UniqueViolationException.class);
        assertThat(contents("u2")).isEqualTo(Map.of(kv(1, "a"), 1L, kv(2, "b"), 1L));
    }

    @Test
    void oneFailingPartRefusesTheWholeWrite() {
        storage.write("u2", List.of(RowDiff.insert(kv(7, "x")))).block(WAIT);
        // u1's part is fine, u2's deletes a row the table does not hold.
        assertThatThrownBy(() -> storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(1, "a"))),
                "u2", List.of(new RowDiff(kv(9, "x"), -1))), new CatalogSwap("lsn", null, Map.of("lsn", "0/20"), List.of())).block(WAIT))
                .isInstanceOf(RowsGoneException.class).hasMessageContaining("'u2'");
        // u2's part duplicates its primary key.
        assertThatThrownBy(() -> storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(1, "a"))),
                "u2", List.of(RowDiff.insert(kv(7, "y")))), null).block(WAIT))
                .isInstanceOf(UniqueViolationException.class);
        // A guard that does not hold.
        assertThatThrownBy(() -> storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(1, "a")))),
                new CatalogSwap("lsn", "0/5", Map.of("lsn", "0/20"), List.of())).block(WAIT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'lsn'");
        assertThatThrownBy(() -> storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(1, "a"))), "nope", List.of()), null).block(WAIT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown table 'nope'");
        assertThat(contents("u1")).isEmpty();
        assertThat(contents("u2")).isEqualTo(Map.of(kv(7, "x"), 1L));
        assertThat(storage.catalogEntries()).doesNotContainKey("lsn");

        // A later write in flight counts the earlier one's rows: the delete of a row inserted by a write not yet applied passes.
        var first = storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(3, "c")))), null);
        var second = storage.writeTables(Map.of("u1", List.of(new RowDiff(kv(3, "c"), -1)), "u2", List.of(new RowDiff(kv(7, "x"), -1))), null);
        first.block(WAIT);
        second.block(WAIT);
        assertThat(contents("u1")).isEmpty();
        assertThat(contents("u2")).isEmpty();
    }

    @Test
    void overASharedLog() {
        storage.close();
        MemoryLog log = new MemoryLog();
        storage = TableStorages.replicated(log, options);
        storage.createTable("u1", KV);
        storage.createTable("u2", KV);
        long t = storage.writeTables(Map.of("u1", List.of(RowDiff.insert(kv(1, "a"))), "u2", List.of(RowDiff.insert(kv(2, "b")))),
                new CatalogSwap("lsn", null, Map.of("lsn", "0/10"), List.of())).block(WAIT);
        assertThat(storage.catalogEntries()).containsEntry("lsn", "0/10");
        // Another replica reading the same log applies it alike.
        TableStorage other = TableStorages.replicated(log.view(), options);
        try {
            assertThat(other.catalogEntries()).containsEntry("lsn", "0/10");
            assertThat(other.lastWriteTime()).isEqualTo(t);
            long at = other.upper("u2").time() - 1;
            assertThat(accumulate(read(other, "u2", at, at), at)).isEqualTo(Map.of(kv(2, "b"), 1L));
        } finally {
            other.close();
        }
    }

    /** A key added through a shared log: checked where it is applied, then enforced alike on every replica, and dropped alike. */
    @Test
    void aKeyAddedOverASharedLogHoldsOnEveryReplica() {
        storage.close();
        MemoryLog log = new MemoryLog();
        storage = TableStorages.replicated(log, options);
        storage.createTable("u1", KV);
        storage.write("u1", List.of(RowDiff.insert(kv(1, "a")), RowDiff.insert(kv(2, "a")), RowDiff.insert(kv(3, null)), RowDiff.insert(kv(4, null)))).block(WAIT);
        UniqueKey byV = new UniqueKey("u1_v_idx", List.of(1), false);
        assertThatThrownBy(() -> storage.addKey("u1", byV, null)).isInstanceOfSatisfying(UniqueViolationException.class,
                e -> assertThat(e.detail(Object::toString)).isEqualTo("Key (v)=(a) is duplicated."));
        assertThat(storage.keys("u1")).isEmpty();
        storage.write("u1", List.of(new RowDiff(kv(2, "a"), -1), RowDiff.insert(kv(2, "b")))).block(WAIT);
        storage.addKey("u1", byV, new CatalogSwap("index/u1_v_idx", null, Map.of("index/u1_v_idx", "{}"), List.of()));
        assertThat(storage.catalogEntries()).containsKey("index/u1_v_idx");
        TableStorage other = TableStorages.replicated(log.view(), options);
        try {
            assertThat(other.keys("u1")).containsExactly(byV);
            assertThatThrownBy(() -> other.write("u1", List.of(RowDiff.insert(kv(5, "b")))).block(WAIT)).isInstanceOf(UniqueViolationException.class);
            other.write("u1", List.of(RowDiff.insert(kv(5, null)))).block(WAIT);
            other.dropKey("u1", "u1_v_idx", null);
            storage.write("u1", List.of(RowDiff.insert(kv(6, "b")))).block(WAIT);
            assertThat(storage.keys("u1")).isEmpty();
        } finally {
            other.close();
        }
    }

    /** An in-memory shared log, {@code entries} shared by every view; each view (a replica's consumer) reads from the start. */
    private static final class MemoryLog implements SharedLog {
        private final List<Entry> entries;
        private int next;

        MemoryLog() {
            this(new ArrayList<>());
        }

        private MemoryLog(List<Entry> entries) {
            this.entries = entries;
        }

        MemoryLog view() {
            return new MemoryLog(entries);
        }

        @Override
        public CompletableFuture<Long> append(String origin, byte[] payload) {
            synchronized (entries) {
                long position = entries.size();
                entries.add(new Entry(position, 0, origin, payload));
                entries.notifyAll();
                return CompletableFuture.completedFuture(position);
            }
        }

        @Override
        public long endPosition() {
            synchronized (entries) {
                return entries.size();
            }
        }

        @Override
        public List<Entry> poll(Duration timeout) {
            synchronized (entries) {
                if (next >= entries.size()) {
                    try {
                        entries.wait(Math.max(1, timeout.toMillis()));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                List<Entry> out = List.copyOf(entries.subList(next, entries.size()));
                next = entries.size();
                return out;
            }
        }

        @Override
        public void wakeup() {
            synchronized (entries) {
                entries.notifyAll();
            }
        }

        @Override
        public void close() {
        }
    }
}
