package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Admission of writes to a table with a primary key {@code (k)} and a unique key {@code (u)} (NULLs
 * distinct), against a naive model written apart from it: the table as a plain map of rows (as value
 * lists) to counts, a write valid when no count goes negative and, counting rows, no {@code k} and no
 * non-NULL {@code u} is held twice. Every write the model refuses for a key is refused with a
 * {@link UniqueViolationException} naming the constraint and changes nothing; every write it accepts is
 * applied. Writes are sent without waiting for the ones before (so admission counts writes in flight),
 * the log is compacted and the storage reopened at random points; concurrent writers race for keys.
 */
class UniqueKeyProperties {

    static final Schema SCHEMA = new Schema(List.of(
            new Column("k", DatumType.INT64, false),
            new Column("v", DatumType.STRING, true),
            new Column("u", DatumType.INT64, true)));
    static final List<UniqueKey> KEYS = List.of(new UniqueKey("t_pkey", List.of(0), true), new UniqueKey("t_u_key", List.of(2), false));

    static Scheduler scheduler;

    @BeforeContainer
    static void start() {
        scheduler = Schedulers.newSingle("unique-key-tick");
    }

    @AfterContainer
    static void stop() {
        scheduler.dispose();
    }

    /** One update: the row's k, v, u (null or 0..2) and a diff. */
    record Change(long k, String v, Long u, long diff) {
        List<Object> values() {
            return Arrays.asList(k, v, u);
        }

        RowDiff rowDiff() {
            return new RowDiff(Row.pack(SCHEMA.types(), values()), diff);
        }
    }

    /** A step: a group of writes sent without waiting, then, after them, maybe a compaction or a reopen. */
    record Step(List<List<Change>> writes, int after) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<Change> change = Combinators.combine(
                Arbitraries.longs().between(0, 3),
                Arbitraries.of("a", "b"),
                Arbitraries.of(null, 0L, 1L, 2L),
                Arbitraries.of(1L, 1L, 1L, -1L, -1L, 2L)).as(Change::new);
        Arbitrary<List<Change>> write = change.list().ofMinSize(1).ofMaxSize(4);
        return Combinators.combine(write.list().ofMinSize(1).ofMaxSize(4), Arbitraries.integers().between(0, 5)).as(Step::new)
                .list().ofMinSize(1).ofMaxSize(10);
    }

    /** The model's verdict on a write: null (valid), "negative" or the name of the violated key. */
    static String verdict(Map<List<Object>, Long> table, List<Change> write) {
        Map<List<Object>, Long> after = new HashMap<>(table);
        for (Change c : write) {
            after.merge(c.values(), c.diff(), Long::sum);
        }
        if (after.values().stream().anyMatch(n -> n < 0)) {
            return "negative";
        }
        Map<Object, Long> byK = new HashMap<>();
        Map<Object, Long> byU = new HashMap<>();
        after.forEach((row, n) -> {
            byK.merge(row.get(0), n, Long::sum);
            if (row.get(2) != null) {
                byU.merge(row.get(2), n, Long::sum);
            }
        });
        if (byK.values().stream().anyMatch(n -> n > 1)) {
            return "t_pkey";
        }
        if (byU.values().stream().anyMatch(n -> n > 1)) {
            return "t_u_key";
        }
        return null;
    }

    static void apply(Map<List<Object>, Long> table, List<Change> write) {
        for (Change c : write) {
            table.merge(c.values(), c.diff(), Long::sum);
        }
        table.values().removeIf(n -> n == 0);
    }

    /** The table's rows as the model holds them, read back through a subscription after {@code after}. */
    static Map<List<Object>, Long> contents(TableStorage storage, long after) {
        Map<List<Object>, Long> out = new HashMap<>();
        long asOf = Math.max(after, storage.since("t").time());
        for (TableEvent e : StorageTesting.read(storage, "t", asOf, asOf)) {
            if (e instanceof TableEvent.Updates u) {
                for (TableUpdate x : u.updates()) {
                    if (x.time() <= asOf) {
                        out.merge(Arrays.asList(x.row().unpack()), x.diff(), Long::sum);
                    }
                }
            }
        }
        out.values().removeIf(n -> n == 0);
        return out;
    }

    static String outcome(CompletableFuture<Long> f) {
        try {
            f.join();
            return null;
        } catch (CompletionException e) {
            return switch (e.getCause()) {
                case UniqueViolationException u -> {
                    assertThat(u.getMessage()).isEqualTo("duplicate key value violates unique constraint \"" + u.constraint() + "\"");
                    yield u.constraint();
                }
                case IllegalArgumentException i when i.getMessage().contains("but the table holds") -> "negative";
                default -> throw e;
            };
        }
    }

    @Property(tries = 80)
    void admissionRefusesExactlyWhatTheModelRefuses(@ForAll("steps") List<Step> steps, @ForAll boolean durable) throws IOException {
        StorageOptions options = StorageOptions.defaults(scheduler).withFsync(false);
        Path dir = durable ? Files.createTempDirectory("tandem-keys") : null;
        TableStorage storage = durable ? TableStorages.durable(dir, options) : TableStorages.inMemory(options);
        try {
            storage.createTable("t", SCHEMA, KEYS);
            Map<List<Object>, Long> model = new HashMap<>();
            long last = -1;
            for (Step step : steps) {
                List<CompletableFuture<Long>> sent = new ArrayList<>();
                List<String> expected = new ArrayList<>();
                for (List<Change> w : step.writes()) {
                    String v = verdict(model, w);
                    expected.add(v);
                    if (v == null) {
                        apply(model, w);
                    }
                    sent.add(storage.write("t", w.stream().map(Change::rowDiff).toList()).toFuture());
                }
                for (int i = 0; i < sent.size(); i++) {
                    assertThat(outcome(sent.get(i))).as("write %s", step.writes().get(i)).isEqualTo(expected.get(i));
                    if (expected.get(i) == null) {
                        last = Math.max(last, sent.get(i).join());
                    }
                }
                assertThat(contents(storage, Math.max(last, 0))).isEqualTo(model);
                if (step.after() == 1) {
                    storage.allowCompaction("t", storage.upper("t"));
                    storage.compact();
                } else if (step.after() == 2 && durable) {
                    storage.close();
                    storage = TableStorages.durable(dir, options);
                    assertThat(storage.keys("t")).isEqualTo(KEYS);
                    assertThat(contents(storage, Math.max(last, 0))).isEqualTo(model);
                }
            }
        } finally {
            storage.close();
        }
    }

    /** Many writers insert the same keys at once: of each key's racers exactly one wins, and the rest are refused. */
    @Property(tries = 10)
    void ofConcurrentInsertsOfOneKeyExactlyOneWins(@ForAll("writers") int writers) throws Exception {
        try (TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(scheduler).withFsync(false))) {
            storage.createTable("t", SCHEMA, KEYS);
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            try {
                Map<Long, List<String>> outcomes = new ConcurrentHashMap<>();
                for (long key = 0; key < 20; key++) {
                    long k = key;
                    CountDownLatch go = new CountDownLatch(1);
                    List<Future<String>> racers = new ArrayList<>();
                    for (int w = 0; w < writers; w++) {
                        String v = "w" + w;
                        // half the keys race on k, half on u (with distinct k)
                        Change c = k % 2 == 0 ? new Change(k, v, null, 1) : new Change(1000 * k + w, v, k, 1);
                        racers.add(pool.submit(() -> {
                            go.await();
                            return outcome(storage.write("t", List.of(c.rowDiff())).toFuture());
                        }));
                    }
                    go.countDown();
                    List<String> got = new ArrayList<>();
                    for (Future<String> f : racers) {
                        got.add(f.get());
                    }
                    outcomes.put(k, got);
                }
                outcomes.forEach((k, got) -> {
                    assertThat(got.stream().filter(Objects::isNull).count()).as("winners of key %d", k).isEqualTo(1);
                    assertThat(got.stream().filter(Objects::nonNull)).as("losers of key %d", k).allMatch(k % 2 == 0 ? "t_pkey"::equals : "t_u_key"::equals);
                });
                Map<List<Object>, Long> rows = contents(storage, storage.lastWriteTime());
                assertThat(rows).hasSize(20);
                assertThat(rows.values()).allMatch(n -> n == 1);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Provide
    Arbitrary<Integer> writers() {
        return Arbitraries.integers().between(2, 8);
    }

    /**
     * Concurrent writers of random inserts and deletes: the writes acknowledged, replayed through the
     * model in timestamp order (the log's), are each valid, and leave the table the storage holds.
     */
    @Property(tries = 10)
    void concurrentWritesAcceptedAreValidInLogOrder(@ForAll("steps") List<Step> a, @ForAll("steps") List<Step> b,
                                                   @ForAll("steps") List<Step> c) throws Exception {
        try (TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(scheduler).withFsync(false))) {
            storage.createTable("t", SCHEMA, KEYS);
            Map<Long, List<Change>> accepted = new ConcurrentHashMap<>();
            List<Thread> threads = new ArrayList<>();
            List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            for (List<Step> steps : List.of(a, b, c)) {
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                        for (Step s : steps) {
                            for (List<Change> w : s.writes()) {
                                CompletableFuture<Long> f = storage.write("t", w.stream().map(Change::rowDiff).toList()).toFuture();
                                if (outcome(f) == null) {
                                    accepted.put(f.join(), w);
                                }
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                t.start();
                threads.add(t);
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            assertThat(errors).isEmpty();
            Map<List<Object>, Long> model = new HashMap<>();
            long last = 0;
            for (Map.Entry<Long, List<Change>> e : new java.util.TreeMap<>(accepted).entrySet()) {
                assertThat(verdict(model, e.getValue())).as("acknowledged write at %d: %s", e.getKey(), e.getValue()).isNull();
                apply(model, e.getValue());
                last = e.getKey();
            }
            assertThat(contents(storage, last)).isEqualTo(model);
        }
    }
}
