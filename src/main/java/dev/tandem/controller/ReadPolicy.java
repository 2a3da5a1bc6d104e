package dev.tandem.controller;

import dev.tandem.protocol.ComputeCommand;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The read policy: which time a read reads at, the holds that keep that time readable on its inputs
 * while it is in flight, and how far compaction may advance each index (its window behind the upper)
 * and each table, never past a hold.
 *
 * <p>Locking: choosing a time over several inputs (slow-path reads, change streams) and taking its holds
 * happen under this policy's one lock, as do compaction and the start of an introspection collection's
 * compaction frontier, so no compaction falls between a read's choice and its holds. A fast-path read
 * over one index takes no lock: {@link HeldFrontier#chooseAndHold} agrees with compaction through the
 * order of its reads and writes.
 */
final class ReadPolicy {

    /** How often table compaction frontiers advance (the index ticker runs every 50 ms). */
    private static final long TABLE_COMPACTION_EVERY_MS = 1000;

    private final TableStorage storage;
    private final LongSupplier clock;
    private final Supplier<ControllerSettings> settings;
    private final IndexTracker indexes;
    private final PeekDispatch dispatch;
    private final Object lock = new Object();
    private final Map<String, Holds> tableHolds = new ConcurrentHashMap<>();
    private long lastTableCompaction = Long.MIN_VALUE / 2;

    ReadPolicy(TableStorage storage, LongSupplier clock, Supplier<ControllerSettings> settings, IndexTracker indexes, PeekDispatch dispatch) {
        this.storage = storage;
        this.clock = clock;
        this.settings = settings;
        this.indexes = indexes;
        this.dispatch = dispatch;
    }

    /**
     * The read time: an explicit {@code as_of}; for strict reads the oracle's latest write; otherwise
     * the freshest time at which every input is sealed. Never before an input's compaction frontier.
     */
    long chooseTime(boolean strict, Long asOf, List<IndexState> inputs, List<String> tables) {
        // no time precedes the first (a read of constants alone, before any write, reads at it)
        long since = Frontier.MIN.time();
        long sealed = Long.MAX_VALUE;
        for (IndexState s : inputs) {
            since = Math.max(since, s.reads.since().time());
            sealed = Math.min(sealed, Math.max(s.asOf, s.upper.isEmpty() ? Long.MAX_VALUE : s.upper.time() - 1));
        }
        for (String table : tables) {
            since = Math.max(since, storage.since(table).time());
            Frontier u = storage.upper(table);
            sealed = Math.min(sealed, u.isEmpty() ? Long.MAX_VALUE : u.time() - 1);
        }
        if (asOf != null) {
            if (asOf < since) {
                throw new ControllerException(ControllerException.Reason.BEFORE_SINCE,
                        "as_of " + asOf + " is before the compaction frontier " + since + "; read at " + since + " or later");
            }
            return asOf;
        }
        if (strict) {
            return Math.max(storage.lastWriteTime(), since);
        }
        if (sealed == Long.MAX_VALUE) {
            sealed = clock.getAsLong();
        }
        return Math.max(sealed, since);
    }

    /** A read time and its hold on one index, for {@link Holds#remove}. */
    record Held(long time, Runnable release) {
    }

    /** Chooses a fast-path read's time on one index and holds it, without the lock. */
    Held holdOne(IndexState s, boolean strict, Long asOf) {
        long[] held = s.reads.chooseAndHold(() -> chooseTime(strict, asOf, List.of(s), List.of()));
        long hold = held[1];
        return new Held(held[0], () -> s.reads.holds.remove(hold));
    }

    /**
     * Under the lock: chooses a read time over {@code inputs} and {@code tables}, holds it on each (adding
     * each hold's release to {@code releases}), then runs {@code alsoUnderLock} with the time (e.g. to
     * start tracking a dataflow that reads at it); returns the time.
     */
    long hold(boolean strict, Long asOf, List<IndexState> inputs, List<String> tables, List<Runnable> releases, LongConsumer alsoUnderLock) {
        synchronized (lock) {
            long t = chooseTime(strict, asOf, inputs, tables);
            for (IndexState s : inputs) {
                long h = s.reads.holds.add(t);
                releases.add(() -> s.reads.holds.remove(h));
            }
            for (String table : tables) {
                Holds h = tableHolds.computeIfAbsent(table, k -> new Holds());
                long id = h.add(t);
                releases.add(() -> h.remove(id));
            }
            alsoUnderLock.accept(t);
            return t;
        }
    }

    /** Raises an introspection collection's compaction frontier to its first reported upper. */
    void raise(IndexState s, Frontier to) {
        synchronized (lock) {
            s.reads.raise(to);
        }
    }

    /** Stops tracking dataflow {@code id} with no compaction running over it. */
    void untrack(String id) {
        synchronized (lock) {
            indexes.untrack(id);
        }
    }

    /** The index's compaction window: its own if it was created with one, else the live default. */
    long windowOf(CatalogEntry.Index index) {
        return index.windowMillis() != CatalogEntry.Index.DEFAULT_WINDOW ? index.windowMillis() : settings.get().compactionWindow().toMillis();
    }

    /**
     * Advances every index's compaction frontier to its window behind the upper, but never past a hold;
     * under the lock, so a read's time and its hold are taken with no compaction in between. Tables
     * (whose log compaction is coarse anyway) are visited at most once a second.
     */
    void compact() {
        synchronized (lock) {
            for (IndexState s : indexes.all()) {
                if (s.upper.isEmpty() || !s.hydrated) {
                    continue;
                }
                Frontier next = s.reads.compactTo(s.upper.time() - 1 - windowOf(s.index));
                if (next != null) {
                    dispatch.send(new ComputeCommand.AllowCompaction(s.index.id(), next));
                }
            }
            long now = clock.getAsLong();
            if (now - lastTableCompaction < TABLE_COMPACTION_EVERY_MS) {
                return;
            }
            lastTableCompaction = now;
            compactTables();
        }
    }

    private void compactTables() {
        long window = settings.get().compactionWindow().toMillis();
        long hydrating = Long.MAX_VALUE;
        for (IndexState s : indexes.all()) {
            if (!s.hydrated) {
                hydrating = Math.min(hydrating, s.asOf);
            }
        }
        for (String table : storage.tables()) {
            Frontier upper = storage.upper(table);
            if (upper.isEmpty()) {
                continue;
            }
            Holds h = tableHolds.get(table);
            long target = Math.min(Math.min(upper.time() - 1 - window, h == null ? Long.MAX_VALUE : h.min()), hydrating);
            if (target > storage.since(table).time()) {
                storage.allowCompaction(table, Frontier.at(target));
            }
        }
    }
}
