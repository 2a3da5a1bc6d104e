package dev.tandem.storage;

import static dev.tandem.storage.StorageTesting.KV;
import static dev.tandem.storage.StorageTesting.accumulate;
import static dev.tandem.storage.StorageTesting.kv;
import static dev.tandem.storage.StorageTesting.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The storage's contract on the in-memory journal: validation, timestamps, frontiers, subscriptions. */
class TableStorageTest {

    private final AtomicLong clock = new AtomicLong(1_000);
    private VirtualTimeScheduler time;
    private TableStorage storage;

    @BeforeEach
    void open() {
        time = VirtualTimeScheduler.create();
        storage = TableStorages.inMemory(StorageOptions.defaults(time).withClock(clock::get));
        storage.createTable("u1", KV);
    }

    @AfterEach
    void close() {
        storage.close();
        time.dispose();
    }

    private void assertNothingWritten() {
        assertThat(storage.lastWriteTime()).isEqualTo(-1);
        assertThat(storage.stats().records()).as("only the create was logged").isEqualTo(1);
    }

    /** The write fails with an {@link IllegalArgumentException} saying {@code message}, and changes nothing. */
    private void assertRefused(String table, List<RowDiff> updates, String message) {
        StepVerifier.create(storage.write(table, updates))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class).hasMessage(message))
                .verify(Duration.ofSeconds(5));
        assertNothingWritten();
    }

    @Test
    void rejectsAWriteToAnUnknownTable() {
        assertRefused("u9", List.of(RowDiff.insert(kv(1, "a"))), "unknown table 'u9'");
    }

    @Test
    void rejectsWrongArityNamingTheRow() {
        List<RowDiff> updates = List.of(RowDiff.insert(kv(1, "a")), RowDiff.insert(Row.of(2L)));
        assertRefused("u1", updates, "write to table 'u1' rejected: row 1 has 1 columns, the table has 2");
    }

    @Test
    void rejectsAWrongTypeNamingRowAndColumn() {
        List<RowDiff> updates = List.of(RowDiff.insert(kv(1, "a")), RowDiff.insert(kv(2, "b")), RowDiff.insert(Row.of(3L, 4L)));
        assertRefused("u1", updates, "write to table 'u1' rejected: row 2, column 'v' (#1): expected string, got int64");
    }

    @Test
    void rejectsNullInANonNullableColumn() {
        Row nullKey = Row.pack(KV.types(), Arrays.asList(null, "x"));
        assertRefused("u1", List.of(RowDiff.insert(nullKey)), "write to table 'u1' rejected: row 0, column 'k' (#0) is not nullable but is NULL");
    }

    @Test
    void acceptsNullInANullableColumn() {
        long ts = storage.write("u1", List.of(RowDiff.insert(kv(1, null)))).block(Duration.ofSeconds(5));
        assertThat(accumulate(read(storage, "u1", ts, ts), ts)).containsExactly(Map.entry(kv(1, null), 1L));
    }

    @Test
    void rejectsDiffZero() {
        assertRefused("u1", List.of(RowDiff.insert(kv(1, "a")), new RowDiff(kv(2, "b"), 0)), "write to table 'u1' rejected: row 1 has diff 0");
    }

    @Test
    void aDeleteOfARowThatIsNotThereIsRefusedUnlessChecksAreOffForAnInternalWriter() {
        assertRefused("u1", List.of(RowDiff.delete(kv(9, "gone"))), "write to table 'u1' rejected: it deletes 1 copy of row [9, gone] but the table holds 0; nothing was written");
        // The introspection log's kind of writer: it retracts only rows it inserted, so nothing is looked up.
        TableStorage unchecked = TableStorages.inMemory(StorageOptions.defaults(time).withClock(clock::get).withDeleteChecks(false));
        try {
            unchecked.createTable("u1", KV);
            long t = unchecked.write("u1", List.of(RowDiff.insert(kv(1, "a")))).block(Duration.ofSeconds(5));
            long u = unchecked.write("u1", List.of(RowDiff.delete(kv(1, "a")))).block(Duration.ofSeconds(5));
            assertThat(u).isGreaterThan(t);
            assertThat(accumulate(read(unchecked, "u1", u, u), u)).isEmpty();
        } finally {
            unchecked.close();
        }
    }

    @Test
    void rejectsDuplicateAndUnknownTablesWithoutChangingAnything() {
        assertThatThrownBy(() -> storage.createTable("u1", Schema.ofTypes(List.of(DatumType.BOOL))))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("table 'u1' already exists");
        assertThat(storage.schema("u1")).isEqualTo(KV);
        assertThatThrownBy(() -> storage.dropTable("u2")).isInstanceOf(IllegalArgumentException.class).hasMessage("unknown table 'u2'");
        assertThatThrownBy(() -> storage.schema("u2")).isInstanceOf(IllegalArgumentException.class).hasMessage("unknown table 'u2'");
        assertThatThrownBy(() -> storage.upper("u2")).isInstanceOf(IllegalArgumentException.class).hasMessage("unknown table 'u2'");
        assertThat(storage.tables()).containsExactly("u1");
    }

    @Test
    void writesGetStrictlyIncreasingTimestampsThatFollowTheClockAndNeverGoBack() {
        long first = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")))).block();
        assertThat(first).isEqualTo(1_000);
        long second = storage.write("u1", List.of(RowDiff.insert(kv(2, "a")))).block();
        assertThat(second).as("same clock reading, still strictly increasing").isEqualTo(1_001);
        clock.set(5_000);
        long third = storage.write("u1", List.of(RowDiff.insert(kv(3, "a")))).block();
        assertThat(third).isEqualTo(5_000);
        clock.set(2_000);
        long fourth = storage.write("u1", List.of(RowDiff.insert(kv(4, "a")))).block();
        assertThat(fourth).as("the clock stepped back; timestamps do not").isEqualTo(5_001);
        assertThat(storage.upper("u1")).isEqualTo(Frontier.at(5_002));
        assertThat(storage.lastWriteTime()).isEqualTo(5_001);
    }

    @Test
    void idleTicksAdvanceTheUpperAndLaterWritesStayAtOrBeyondIt() {
        assertThat(storage.upper("u1")).isEqualTo(Frontier.at(0));
        clock.set(7_000);
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(storage.upper("u1")).isEqualTo(Frontier.at(7_000));
        clock.set(6_000);
        time.advanceTimeBy(Duration.ofMillis(10));
        assertThat(storage.upper("u1")).as("a clock stepping back never moves the upper back").isEqualTo(Frontier.at(7_000));
        long ts = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")))).block();
        assertThat(ts).as("a write lands at or beyond every reported upper").isGreaterThanOrEqualTo(7_000);
    }

    @Test
    void tickIntervalIsConfigurable() {
        storage.close();
        storage = TableStorages.inMemory(StorageOptions.defaults(time).withClock(clock::get).withTickInterval(Duration.ofSeconds(1)));
        storage.createTable("u1", KV);
        clock.set(9_000);
        time.advanceTimeBy(Duration.ofMillis(999));
        assertThat(storage.upper("u1")).isEqualTo(Frontier.at(0));
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(storage.upper("u1")).isEqualTo(Frontier.at(9_000));
    }

    @Test
    void subscriptionDeliversTheSnapshotThenLaterWritesThenIdleProgress() {
        long t1 = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")), RowDiff.insert(kv(2, "b")))).block();
        long t2 = storage.write("u1", List.of(RowDiff.delete(kv(1, "a")), new RowDiff(kv(3, "c"), 5))).block();
        StepVerifier.create(storage.subscribe("u1", t1))
                .expectNext(new TableEvent.Updates(List.of(new TableUpdate(kv(1, "a"), t1, 1), new TableUpdate(kv(2, "b"), t1, 1))))
                .expectNext(new TableEvent.Updates(List.of(new TableUpdate(kv(1, "a"), t2, -1), new TableUpdate(kv(3, "c"), t2, 5))))
                .expectNext(new TableEvent.Progress(Frontier.at(t2 + 1)))
                .then(() -> storage.write("u1", List.of(RowDiff.insert(kv(4, "d")))).block())
                .expectNext(new TableEvent.Updates(List.of(new TableUpdate(kv(4, "d"), t2 + 1, 1))))
                .expectNext(new TableEvent.Progress(Frontier.at(t2 + 2)))
                .then(() -> {
                    clock.set(20_000);
                    time.advanceTimeBy(Duration.ofMillis(10));
                })
                .expectNext(new TableEvent.Progress(Frontier.at(20_000)))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void aLiveSubscriptionDoesNotKeepTheHistoryItWasPrimedFrom() throws InterruptedException {
        long t1 = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")), RowDiff.insert(kv(2, "b")))).block();
        java.lang.ref.WeakReference<dev.tandem.trace.TraceSnapshot> primedFrom =
                new java.lang.ref.WeakReference<>(((LogTableStorage) storage).history("u1"));
        List<TableEvent> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        reactor.core.Disposable subscription = storage.subscribe("u1", t1).subscribe(got::add);
        try {
            assertThat(got).as("the snapshot arrives while the subscription is set up").isNotEmpty();
            assertThat(got.get(0)).isEqualTo(new TableEvent.Updates(List.of(new TableUpdate(kv(1, "a"), t1, 1), new TableUpdate(kv(2, "b"), t1, 1))));
            storage.write("u1", List.of(RowDiff.insert(kv(3, "c")))).block(); // the table's history moves on
            // The subscription lives on (as a maintained index's does); the old history must not live with it,
            // or every merged-away batch of the table stays in memory beside its merge.
            for (int i = 0; i < 50 && primedFrom.get() != null; i++) {
                System.gc();
                Thread.sleep(20);
            }
            assertThat(primedFrom.get()).as("the history the subscription was primed from").isNull();
        } finally {
            subscription.dispose();
        }
    }

    @Test
    void snapshotWaitsUntilTheUpperPassesAsOf() {
        long t1 = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")))).block();
        StepVerifier.create(storage.subscribe("u1", 3_000))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(50))
                .then(() -> {
                    clock.set(3_001);
                    time.advanceTimeBy(Duration.ofMillis(10));
                })
                .expectNext(new TableEvent.Updates(List.of(new TableUpdate(kv(1, "a"), 3_000, 1))))
                .expectNext(new TableEvent.Progress(Frontier.at(3_001)))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(t1).isLessThan(3_000);
    }

    @Test
    void readingBeforeTheCompactionFrontierFailsClearly() {
        long t1 = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")))).block();
        long t2 = storage.write("u1", List.of(RowDiff.insert(kv(2, "a")))).block();
        storage.allowCompaction("u1", Frontier.at(t2));
        storage.allowCompaction("u1", Frontier.at(t1));
        assertThat(storage.since("u1")).as("since only moves forward").isEqualTo(Frontier.at(t2));
        StepVerifier.create(storage.subscribe("u1", t1))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("table 'u1': the compaction frontier {" + t2 + "} is beyond the read time " + t1))
                .verify(Duration.ofSeconds(5));
        assertThatThrownBy(() -> storage.allowCompaction("u1", Frontier.EMPTY)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void droppingATableEndsItsSubscriptionsWithTheEmptyFrontier() {
        long t1 = storage.write("u1", List.of(RowDiff.insert(kv(1, "a")))).block();
        StepVerifier.create(storage.subscribe("u1", t1))
                .expectNext(new TableEvent.Updates(List.of(new TableUpdate(kv(1, "a"), t1, 1))))
                .expectNext(new TableEvent.Progress(Frontier.at(t1 + 1)))
                .then(() -> storage.dropTable("u1"))
                .expectNext(new TableEvent.Progress(Frontier.EMPTY))
                .verifyComplete();
        assertThat(storage.tables()).isEmpty();
        StepVerifier.create(storage.write("u1", List.of(RowDiff.insert(kv(1, "a")))))
                .expectErrorMessage("unknown table 'u1'")
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void catalogEntriesArePutReplacedAndRemoved() {
        storage.putCatalogEntry("view/u2", "{\"a\":1}");
        storage.putCatalogEntry("index/u3", "{\"b\":2}");
        storage.putCatalogEntry("view/u2", "{\"a\":2}");
        storage.removeCatalogEntry("index/u3");
        storage.removeCatalogEntry("absent");
        assertThat(storage.catalogEntries()).containsExactly(Map.entry("view/u2", "{\"a\":2}"));
    }

    @Test
    void subscribingConcurrentlyWithWritesLosesAndDuplicatesNothing() throws Exception {
        storage.close();
        var ticks = Schedulers.newSingle("ticks");
        storage = TableStorages.inMemory(StorageOptions.defaults(ticks).withTickInterval(Duration.ofMillis(1)));
        storage.createTable("u1", KV);
        int writers = 4;
        int perWriter = 200;
        ConcurrentLinkedQueue<TableUpdate> acked = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < perWriter; i++) {
                    Row row = kv(writer * 1_000L + i, "w");
                    long ts = storage.write("u1", List.of(RowDiff.insert(row))).block(Duration.ofSeconds(30));
                    acked.add(new TableUpdate(row, ts, 1));
                }
            }));
        }
        List<Mono<List<TableEvent>>> reads = new ArrayList<>();
        List<Long> asOfs = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            long asOf = Math.max(0, storage.lastWriteTime());
            asOfs.add(asOf);
            reads.add(storage.subscribe("u1", asOf).replay().autoConnect(0)
                    .takeUntil(e -> e instanceof TableEvent.Progress p && acked.size() == writers * perWriter
                            && p.upper().isPast(storage.lastWriteTime()))
                    .collectList().cache());
            reads.get(i).subscribe();
        }
        for (Thread t : threads) {
            assertThat(t.join(Duration.ofSeconds(60))).as("writer %s finished", t).isTrue();
        }
        assertThat(acked).hasSize(writers * perWriter);
        long last = storage.lastWriteTime();
        List<TableUpdate> model = new ArrayList<>(acked);
        for (int i = 0; i < reads.size(); i++) {
            List<TableEvent> events = Flux.concat(reads.get(i)).blockLast(Duration.ofSeconds(30));
            long asOf = asOfs.get(i);
            StorageTesting.checkShape(events, asOf);
            // Both accumulations only change at the times of updates, so comparing them at as_of and at
            // every update time (the model's and the reader's) covers every time up to the last write.
            java.util.SortedSet<Long> times = new java.util.TreeSet<>();
            times.add(asOf);
            model.forEach(u -> times.add(u.time()));
            StorageTesting.updatesOf(events).forEach(u -> times.add(u.time()));
            for (long t : times.subSet(asOf, last + 1)) {
                assertThat(accumulate(events, t)).as("reader %d at %d", i, t).isEqualTo(StorageTesting.model(model, t));
            }
        }
        storage.close();
        ticks.dispose();
    }

    @Test
    void blockingCallsAfterCloseFailClearly() {
        storage.close();
        assertThatThrownBy(() -> storage.createTable("u2", KV)).isInstanceOf(IllegalStateException.class).hasMessage("the storage is closed");
        StepVerifier.create(storage.write("u1", List.of(RowDiff.insert(kv(1, "a"))))).expectErrorMessage("the storage is closed").verify(Duration.ofSeconds(5));
    }

    @Test
    void schemaWithAllTypesRoundTrips() {
        Schema all = new Schema(List.of(new Column("b", DatumType.BOOL, true), new Column("f", DatumType.FLOAT64, true),
                new Column("t", DatumType.TIMESTAMP, false)));
        storage.createTable("u2", all);
        assertThat(storage.schema("u2")).isEqualTo(all);
        assertThat(storage.tables()).containsExactly("u1", "u2");
    }

    /**
     * A subscription to a large table, taken while writes keep being applied: its snapshot is read
     * outside the storage's lock, so writes land meanwhile; each must reach the subscriber exactly once,
     * after the snapshot and in order.
     */
    @Test
    void aSubscriptionTakenWhileWritesApplySeesEachWriteExactlyOnce() throws Exception {
        List<TableUpdate> acked = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<RowDiff> bulk = new ArrayList<>();
        for (long i = 0; i < 50_000; i++) {
            bulk.add(RowDiff.insert(kv(i, "v")));
        }
        long t0 = storage.write("u1", bulk).block(Duration.ofSeconds(30));
        bulk.forEach(d -> acked.add(new TableUpdate(d.row(), t0, 1)));
        Thread writer = new Thread(() -> {
            for (long i = 0; i < 300; i++) {
                List<RowDiff> w = List.of(RowDiff.insert(kv(1_000_000 + i, "w")), RowDiff.delete(kv(i, "v")));
                long ts = storage.write("u1", w).block(Duration.ofSeconds(30));
                w.forEach(d -> acked.add(new TableUpdate(d.row(), ts, d.diff())));
            }
        }, "writer");
        List<ConcurrentLinkedQueue<TableEvent>> streams = new ArrayList<>();
        List<Long> asOfs = new ArrayList<>();
        List<reactor.core.Disposable> subscriptions = new ArrayList<>();
        writer.start();
        for (int n = 0; n < 5; n++) {
            long asOf = storage.upper("u1").time() - 1;
            ConcurrentLinkedQueue<TableEvent> events = new ConcurrentLinkedQueue<>();
            subscriptions.add(storage.subscribe("u1", asOf).subscribe(events::add));
            streams.add(events);
            asOfs.add(asOf);
        }
        writer.join(Duration.ofSeconds(60));
        assertThat(writer.isAlive()).isFalse();
        long last = storage.write("u1", List.of(RowDiff.insert(kv(-1, "end")))).block(Duration.ofSeconds(30));
        acked.add(new TableUpdate(kv(-1, "end"), last, 1));
        for (int n = 0; n < streams.size(); n++) {
            ConcurrentLinkedQueue<TableEvent> events = streams.get(n);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> events.stream()
                    .anyMatch(e -> e instanceof TableEvent.Progress p && p.upper().isPast(last)));
            subscriptions.get(n).dispose();
            List<TableEvent> seen = List.copyOf(events);
            long asOf = asOfs.get(n);
            StorageTesting.checkShape(seen, asOf);
            List<Long> times = acked.stream().map(TableUpdate::time).filter(t -> t >= asOf).distinct().sorted().toList();
            for (int k = 0; k < times.size(); k++) {
                if (k % 25 == 0 || k == times.size() - 1) {
                    long t = times.get(k);
                    assertThat(accumulate(seen, t)).as("subscription %d at %d", n, t).isEqualTo(StorageTesting.model(acked, t));
                }
            }
        }
    }

    /**
     * Writers racing inserts against deletes of the same few rows: every acknowledged history is a
     * multiset at every timestamp (no row ever negative), refused writes change nothing, and the table
     * ends as the acknowledged writes say.
     */
    @Test
    void concurrentDeletesRacingInsertsNeverMakeARowNegative() throws Exception {
        List<TableUpdate> acked = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            long seed = w;
            writers.add(new Thread(() -> {
                java.util.Random random = new java.util.Random(seed);
                for (int i = 0; i < 300; i++) {
                    Row row = kv(random.nextInt(4), "x");
                    long diff = random.nextInt(3) == 0 ? 1 : -1;
                    List<RowDiff> write = List.of(new RowDiff(row, diff));
                    try {
                        long ts = storage.write("u1", write).block(Duration.ofSeconds(30));
                        acked.add(new TableUpdate(row, ts, diff));
                    } catch (IllegalArgumentException e) {
                        assertThat(e).hasMessageContaining("but the table holds");
                        refused.incrementAndGet();
                    }
                }
            }, "writer-" + w));
        }
        writers.forEach(Thread::start);
        for (Thread t : writers) {
            t.join(Duration.ofSeconds(60));
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(refused.get()).as("some deletes found nothing to delete").isPositive();
        assertThat(acked.stream().filter(u -> u.diff() < 0)).as("some deletes were accepted").isNotEmpty();
        List<Long> times = acked.stream().map(TableUpdate::time).distinct().sorted().toList();
        for (long t : times) {
            assertThat(StorageTesting.model(acked, t).values()).as("counts at %d", t).allMatch(c -> c > 0);
        }
        long last = times.getLast();
        assertThat(accumulate(read(storage, "u1", last, last), last)).isEqualTo(StorageTesting.model(acked, last));
    }
}
