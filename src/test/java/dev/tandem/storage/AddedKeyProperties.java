package dev.tandem.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.row.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A unique key on {@code (u)} added to and dropped from a table that holds rows already ({@link
 * TableStorage#addKey}), against the naive model of {@link UniqueKeyProperties} (the table as a map of
 * rows to counts): the key's addition is refused exactly when the rows as every write admitted before it
 * leaves them hold a non-NULL {@code u} twice, naming the smallest such value; from its addition to its
 * drop every write that would hold one twice is refused and no other. Writes are sent without waiting
 * (so the key is checked against writes in flight), the log is compacted and the storage reopened at
 * random points; writers race with the key's addition.
 */
class AddedKeyProperties {

    static final UniqueKey U = new UniqueKey("t_u_idx", List.of(2), false);
    static final List<UniqueKey> PRIMARY = List.of(new UniqueKey("t_pkey", List.of(0), true));

    static Scheduler scheduler;

    @BeforeContainer
    static void start() {
        scheduler = Schedulers.newSingle("added-key-tick");
    }

    @AfterContainer
    static void stop() {
        scheduler.dispose();
    }

    /** A step: writes sent without waiting, then 0: nothing, 1: add the key, 2: drop it, 3: compact, 4: reopen. */
    record Step(List<List<UniqueKeyProperties.Change>> writes, int then) {
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        Arbitrary<UniqueKeyProperties.Change> change = Combinators.combine(
                Arbitraries.longs().between(0, 4),
                Arbitraries.of("a", "b"),
                Arbitraries.of(null, 0L, 1L, 2L),
                Arbitraries.of(1L, 1L, 1L, -1L, -1L)).as(UniqueKeyProperties.Change::new);
        Arbitrary<List<UniqueKeyProperties.Change>> write = change.list().ofMinSize(1).ofMaxSize(3);
        return Combinators.combine(write.list().ofMinSize(0).ofMaxSize(4), Arbitraries.of(0, 1, 1, 1, 2, 3, 4)).as(Step::new)
                .list().ofMinSize(1).ofMaxSize(12);
    }

    /** The model's verdict on a write: null (valid), "negative", or the key it would violate. */
    static String verdict(Map<List<Object>, Long> table, List<UniqueKeyProperties.Change> write, boolean primary, boolean keyed) {
        Map<List<Object>, Long> after = new HashMap<>(table);
        for (UniqueKeyProperties.Change c : write) {
            after.merge(c.values(), c.diff(), Long::sum);
        }
        if (after.values().stream().anyMatch(n -> n < 0)) {
            return "negative";
        }
        if (primary && held(after, 0).values().stream().anyMatch(n -> n > 1)) {
            return "t_pkey";
        }
        if (keyed && held(after, 2).values().stream().anyMatch(n -> n > 1)) {
            return U.name();
        }
        return null;
    }

    /** How many rows hold each non-NULL value of column {@code c}. */
    static Map<Long, Long> held(Map<List<Object>, Long> table, int c) {
        Map<Long, Long> out = new HashMap<>();
        table.forEach((row, n) -> {
            if (row.get(c) != null) {
                out.merge((Long) row.get(c), n, Long::sum);
            }
        });
        return out;
    }

    /** The smallest {@code u} the model holds twice, or null. */
    static Long smallestDuplicate(Map<List<Object>, Long> table) {
        return held(table, 2).entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).min(Long::compare).orElse(null);
    }

    @Property(tries = 80)
    void keysAddedAndDroppedAreEnforcedBetween(@ForAll("steps") List<Step> steps, @ForAll boolean primary, @ForAll boolean durable) throws IOException {
        StorageOptions options = StorageOptions.defaults(scheduler).withFsync(false);
        Path dir = durable ? Files.createTempDirectory("tandem-added-keys") : null;
        TableStorage storage = durable ? TableStorages.durable(dir, options) : TableStorages.inMemory(options);
        try {
            storage.createTable("t", UniqueKeyProperties.SCHEMA, primary ? PRIMARY : List.of());
            Map<List<Object>, Long> model = new HashMap<>();
            boolean keyed = false;
            long last = 0;
            for (Step step : steps) {
                List<CompletableFuture<Long>> sent = new ArrayList<>();
                List<String> expected = new ArrayList<>();
                for (List<UniqueKeyProperties.Change> w : step.writes()) {
                    String v = verdict(model, w, primary, keyed);
                    expected.add(v);
                    if (v == null) {
                        UniqueKeyProperties.apply(model, w);
                    }
                    sent.add(storage.write("t", w.stream().map(UniqueKeyProperties.Change::rowDiff).toList()).toFuture());
                }
                // the key's change is admitted while the writes before it may still be in flight
                if (step.then() == 1 && !keyed) {
                    Long duplicate = smallestDuplicate(model);
                    if (duplicate == null) {
                        storage.addKey("t", U, null);
                        keyed = true;
                    } else {
                        TableStorage s = storage;
                        assertThatThrownBy(() -> s.addKey("t", U, null)).isInstanceOfSatisfying(UniqueViolationException.class, e -> {
                            assertThat(e.getMessage()).isEqualTo("could not create unique index \"t_u_idx\"");
                            assertThat(e.detail(Object::toString)).isEqualTo("Key (u)=(" + duplicate + ") is duplicated.");
                        });
                    }
                } else if (step.then() == 2 && keyed) {
                    storage.dropKey("t", U.name(), null);
                    keyed = false;
                }
                for (int i = 0; i < sent.size(); i++) {
                    assertThat(UniqueKeyProperties.outcome(sent.get(i))).as("write %s", step.writes().get(i)).isEqualTo(expected.get(i));
                    if (expected.get(i) == null) {
                        last = Math.max(last, sent.get(i).join());
                    }
                }
                assertThat(storage.keys("t")).isEqualTo(keys(primary, keyed));
                assertThat(UniqueKeyProperties.contents(storage, last)).isEqualTo(model);
                if (step.then() == 3) {
                    storage.allowCompaction("t", storage.upper("t"));
                    storage.compact();
                } else if (step.then() == 4 && durable) {
                    storage.close();
                    storage = TableStorages.durable(dir, options);
                    assertThat(storage.keys("t")).isEqualTo(keys(primary, keyed));
                    assertThat(UniqueKeyProperties.contents(storage, last)).isEqualTo(model);
                }
            }
        } finally {
            storage.close();
        }
    }

    /**
     * A compacted log holds the rows at its consolidation time, which the next write may be stamped at too:
     * a key added between them is made, at recovery, from every row replayed.
     */
    @Example
    void aKeyAddedBetweenACompactionAndTheNextWriteRecovers() throws IOException {
        StorageOptions options = StorageOptions.defaults(scheduler).withFsync(false);
        Path dir = Files.createTempDirectory("tandem-added-keys");
        TableStorage storage = TableStorages.durable(dir, options);
        try {
            storage.createTable("t", UniqueKeyProperties.SCHEMA, List.of());
            storage.write("t", List.of(new UniqueKeyProperties.Change(0, "a", 0L, 1).rowDiff())).block(java.time.Duration.ofSeconds(30));
            storage.allowCompaction("t", storage.upper("t"));
            storage.compact();
            storage.addKey("t", U, null);
            long last = storage.write("t", List.of(new UniqueKeyProperties.Change(1, "b", 1L, 1).rowDiff())).block(java.time.Duration.ofSeconds(30));
            storage.close();
            storage = TableStorages.durable(dir, options);
            assertThat(storage.keys("t")).containsExactly(U);
            assertThat(UniqueKeyProperties.contents(storage, last)).hasSize(2);
            assertThat(UniqueKeyProperties.outcome(storage.write("t", List.of(new UniqueKeyProperties.Change(2, "c", 1L, 1).rowDiff())).toFuture()))
                    .isEqualTo(U.name());
        } finally {
            storage.close();
        }
    }

    static List<UniqueKey> keys(boolean primary, boolean keyed) {
        List<UniqueKey> out = new ArrayList<>(primary ? PRIMARY : List.of());
        if (keyed) {
            out.add(U);
        }
        return out;
    }

    /**
     * Writers insert rows of random {@code u} while the key is added: whether or not the addition wins,
     * once it has been made no two rows hold one {@code u}, and a duplicate written after it is refused.
     */
    @Property(tries = 15)
    void aKeyAddedWhileWritersRaceNeverHoldsDuplicates(@ForAll("writers") int writers, @ForAll boolean primary) throws Exception {
        try (TableStorage storage = TableStorages.inMemory(StorageOptions.defaults(scheduler).withFsync(false))) {
            storage.createTable("t", UniqueKeyProperties.SCHEMA, primary ? PRIMARY : List.of());
            for (int round = 0; round < 6; round++) {
                CountDownLatch go = new CountDownLatch(1);
                List<Thread> threads = new ArrayList<>();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                long base = 1000L * round;
                for (int w = 0; w < writers; w++) {
                    long k0 = base + 100L * w;
                    Thread t = new Thread(() -> {
                        try {
                            go.await();
                            for (int i = 0; i < 20; i++) {
                                // distinct k; u from a few values, so some writes duplicate one
                                long k = k0 + i;
                                UniqueKeyProperties.Change c = new UniqueKeyProperties.Change(k, "w", (k * 7) % 40, 1);
                                UniqueKeyProperties.outcome(storage.write("t", List.of(c.rowDiff())).toFuture());
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    });
                    t.start();
                    threads.add(t);
                }
                go.countDown();
                boolean added;
                try {
                    storage.addKey("t", U, null);
                    added = true;
                } catch (UniqueViolationException e) {
                    added = false;
                }
                for (Thread t : threads) {
                    t.join(TimeUnit.SECONDS.toMillis(60));
                    assertThat(t.isAlive()).as("a writer still running").isFalse();
                }
                assertThat(failure.get()).isNull();
                Map<List<Object>, Long> rows = UniqueKeyProperties.contents(storage, storage.lastWriteTime());
                if (added) {
                    assertThat(held(rows, 2).values()).as("u held more than once with the key in place").allMatch(n -> n == 1);
                    Map.Entry<List<Object>, Long> any = rows.entrySet().stream().filter(e -> e.getKey().get(2) != null).findFirst().orElse(null);
                    if (any != null) {
                        Row dup = Row.pack(UniqueKeyProperties.SCHEMA.types(), java.util.Arrays.asList(999_999L - round, "dup", any.getKey().get(2)));
                        assertThat(UniqueKeyProperties.outcome(storage.write("t", List.of(new RowDiff(dup, 1))).toFuture())).isEqualTo(U.name());
                    }
                    storage.dropKey("t", U.name(), null);
                }
                // start the next round from rows without duplicates, so that the key can win it
                List<RowDiff> clear = new ArrayList<>();
                rows.forEach((row, n) -> clear.add(new RowDiff(Row.pack(UniqueKeyProperties.SCHEMA.types(), row), -n)));
                if (!clear.isEmpty()) {
                    storage.write("t", clear).block(java.time.Duration.ofSeconds(30));
                }
            }
        }
    }

    @Provide
    Arbitrary<Integer> writers() {
        return Arbitraries.integers().between(1, 4);
    }
}
