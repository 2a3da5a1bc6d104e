package dev.tandem.storage;

import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.Cursor;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import dev.tandem.trace.TraceSnapshot;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Sinks;

/**
 * One table's rows at rest: its history as a {@link Spine} keyed by the whole row (with no value), so
 * resting rows are packed columnar batches (a row of three int64 columns costs its 27 encoded bytes
 * plus its time and diff) that merge and consolidate at the table's compaction frontier in the
 * background. Mutated only by the storage's commit thread; {@link Applied#count} and the snapshots
 * read an immutable trace snapshot and are safe from any thread.
 *
 * <p>A table with {@link UniqueKey unique keys} is arranged by its first key instead (its primary key,
 * if it has one): the history's key is that key's columns and its value the whole row, so the rows
 * admission counts to enforce the key are the rows the table holds, with no second copy. Each further
 * unique key, and each key added to the table later (which never rearranges it), has a history of its
 * own holding only the key's columns (NULL keys left out: they are never duplicates), consolidated at
 * the same compaction frontier.
 */
final class StoredTable {

    final String id;
    final Schema schema;
    /** The keys: those the table was created with (the first arranges it), then those added since; replaced whole on a change. */
    volatile List<UniqueKey> keys;
    /** How many of {@link #keys} the table was created with; only later ones can be dropped. */
    final int declared;
    /** The columns the history is arranged by (the first key's), or null: arranged by the whole row. */
    private final int[] arranged;
    /** The history of each key that does not arrange the table. */
    private final List<KeyHistory> extras = new ArrayList<>();
    /** The compaction frontier: reads at or after it are exact. */
    long since;
    final List<Subscriber> subscribers = new ArrayList<>();

    private final Spine spine;
    private final ReadHold sinceHold;
    private final BatchBuilder pending = new BatchBuilder();
    private long pendingMaxTime = -1;

    /**
     * A key's own history: the key's columns of every row without a NULL in them, with its hold and staged
     * updates; for a key added during recovery, none (null) until recovery has replayed every record.
     */
    private static final class KeyHistory {
        final UniqueKey key;
        final int[] columns;
        Spine spine;
        ReadHold hold;
        final BatchBuilder pending = new BatchBuilder();

        KeyHistory(UniqueKey key) {
            this.key = key;
            this.columns = key.positions();
        }

        KeyHistory(UniqueKey key, String table, long since) {
            this(key);
            start(table, since);
        }

        void start(String table, long since) {
            spine = new Spine("key " + key.name() + " of table " + table, Frontier.MIN);
            hold = spine.acquireHold("compaction frontier of table " + table, Frontier.at(since));
        }
    }

    StoredTable(String id, Schema schema) {
        this(id, schema, List.of());
    }

    StoredTable(String id, Schema schema, List<UniqueKey> keys) {
        this.id = id;
        this.schema = schema;
        this.keys = List.copyOf(keys);
        this.declared = keys.size();
        this.arranged = keys.isEmpty() ? null : keys.get(0).positions();
        for (int i = 1; i < keys.size(); i++) {
            extras.add(new KeyHistory(keys.get(i), id, 0));
        }
        this.spine = new Spine("table " + id, Frontier.MIN);
        this.sinceHold = spine.acquireHold("compaction frontier of table " + id, Frontier.MIN);
        this.applied = publishable(-1);
    }

    /** Whether the history is arranged by a key (value: the row) rather than by the whole row. */
    boolean keyed() {
        return arranged != null;
    }

    /** Stages an update; it becomes visible at the next {@link #flush()}. Times must not decrease. */
    void stage(Row row, long time, long diff) {
        if (arranged == null) {
            pending.add(row, Row.EMPTY, time, diff);
        } else {
            pending.add(row.project(arranged), row, time, diff);
        }
        for (KeyHistory x : extras) {
            Row key = row.project(x.columns);
            if (x.spine != null && !key.hasNull()) {
                x.pending.add(key, Row.EMPTY, time, diff);
            }
        }
        pendingMaxTime = Math.max(pendingMaxTime, time);
    }

    /**
     * Adds unique key {@code key} to the table (its rows are not checked: admission did), with a history
     * of its own made from the rows the table holds, staged ones included; seen by readers at the next
     * {@link #flush}. In {@code recovery} the history is made by {@link #startKeys} once every record is
     * replayed: a compacted log's rows at its consolidation time may be followed by writes at that very
     * time, which the rows staged so far must not be moved past.
     */
    void addKey(UniqueKey key, boolean recovery) {
        KeyHistory x = new KeyHistory(key);
        if (!recovery) {
            moveStaged();
            build(x);
        }
        extras.add(x);
        List<UniqueKey> more = new ArrayList<>(keys);
        more.add(key);
        keys = List.copyOf(more);
    }

    /** Makes the histories of the keys added during recovery, from every row replayed; before the recovery's flush. */
    void startKeys() {
        if (extras.stream().anyMatch(x -> x.spine == null)) {
            moveStaged();
            extras.stream().filter(x -> x.spine == null).forEach(this::build);
        }
    }

    /** Starts the history of {@code x} with the key values of the rows the history holds (none staged). */
    private void build(KeyHistory x) {
        Frontier upper = spine.upper();
        x.start(id, since);
        BatchBuilder rows = new BatchBuilder();
        // each value with its count at the last time below the upper: admission reads totals only
        keyCounts(spine.snapshot(), keyed(), x.columns).forEach((value, n) -> rows.add(value, Row.EMPTY, upper.time() - 1, n));
        x.spine.insert(rows.build(x.spine.upper(), upper, Frontier.MIN));
    }

    /** Drops the key named {@code name}, one added after the table was created; seen by readers at the next {@link #flush}. */
    void dropKey(String name) {
        for (int i = declared; i < keys.size(); i++) {
            if (keys.get(i).name().equals(name)) {
                KeyHistory x = extras.remove(i - (arranged == null ? 0 : 1));
                if (x.hold != null) {
                    x.hold.release();
                }
                List<UniqueKey> fewer = new ArrayList<>(keys);
                fewer.remove(i);
                keys = List.copyOf(fewer);
                return;
            }
        }
        throw new IllegalStateException("table '" + id + "' has no added key named '" + name + "'");
    }

    /**
     * The values of the key of columns {@code columns} that the rows of {@code history} (arranged by a key
     * when {@code keyed}) hold, with how many rows hold each (none of zero); NULL values left out.
     */
    static java.util.Map<Row, Long> keyCounts(TraceSnapshot history, boolean keyed, int[] columns) {
        java.util.Map<Row, Long> out = new java.util.HashMap<>();
        history.scan(Long.MAX_VALUE, (key, val, diff) -> {
            Row value = (keyed ? val : key).project(columns);
            if (!value.hasNull()) {
                out.merge(value, diff, Long::sum);
            }
        });
        out.values().removeIf(n -> n == 0);
        return out;
    }

    /** The histories as they are now, to publish with sequence number {@code seq}. */
    private Applied publishable(long seq) {
        java.util.Map<UniqueKey, TraceSnapshot> histories = extras.isEmpty() ? java.util.Map.of() : new java.util.HashMap<>();
        for (KeyHistory x : extras) {
            if (x.spine != null) {
                histories.put(x.key, x.spine.snapshot());
            }
        }
        return new Applied(spine.snapshot(), arranged == null ? null : keys.get(0), histories, arranged, seq);
    }

    /** Whether the published view lags the histories (a write, a merge or a key's change changed them). */
    private boolean stale() {
        if (applied.history() != spine.snapshot() || applied.extras().size() != extras.size()) {
            return true;
        }
        for (KeyHistory x : extras) {
            if (x.spine != null && applied.extras().get(x.key) != x.spine.snapshot()) {
                return true;
            }
        }
        return false;
    }

    /** Moves the staged updates into the histories as one batch each, without publishing them. */
    private void moveStaged() {
        if (pending.size() != 0) {
            Frontier lower = spine.upper();
            Frontier upper = Frontier.at(Math.max(pendingMaxTime + 1, lower.time()));
            spine.insert(pending.build(lower, upper, spine.since()));
            for (KeyHistory x : extras) {
                // every key history spans what the table's does, rows with NULL keys or not
                if (x.spine != null) {
                    x.spine.insert(x.pending.build(lower, upper, x.spine.since()));
                }
            }
            pendingMaxTime = -1;
        }
    }

    /** Moves the staged updates into the history as one batch, and publishes it. */
    void flush(long appliedSeq) {
        moveStaged();
        if (appliedSeq > applied.seq() || stale()) {
            applied = publishable(Math.max(appliedSeq, applied.seq()));
        }
    }

    /**
     * Publishes the spine's current snapshot after merges that no write made (idle merging, full
     * compaction): the same rows, so the same sequence number. Without it the published history would
     * keep the merged-away batches alive beside their merge for as long as no write comes.
     */
    private void republish() {
        if (stale()) {
            applied = publishable(applied.seq());
        }
    }

    /**
     * The history (and the histories of the keys that do not arrange it, by key) as published together
     * with the sequence number of the last write applied to it; {@code arranged} as the table's, the
     * columns of {@code arrangedBy} (null: none).
     */
    record Applied(TraceSnapshot history, UniqueKey arrangedBy, java.util.Map<UniqueKey, TraceSnapshot> extras, int[] arranged, long seq) {

        /** The multiplicity of {@code row} over every update in the history. */
        long count(Row row) {
            long[] sum = new long[1];
            if (arranged == null) {
                history.lookup(row, Long.MAX_VALUE, (v, d) -> sum[0] += d);
            } else {
                history.lookup(row.project(arranged), Long.MAX_VALUE, (v, d) -> {
                    if (v.equals(row)) {
                        sum[0] += d;
                    }
                });
            }
            return sum[0];
        }

        /** The rows whose arranged key is {@code key}, with their multiplicities (none of zero). */
        java.util.Map<Row, Long> rowsWithKey(Row key) {
            if (arranged == null) {
                throw new IllegalArgumentException("the table has no unique key to look rows up by");
            }
            java.util.Map<Row, Long> out = new java.util.HashMap<>();
            history.lookup(key, Long.MAX_VALUE, (v, d) -> out.merge(v, d, Long::sum));
            out.values().removeIf(n -> n == 0);
            return out;
        }

        /** How many rows hold {@code value} (in key order) of the table's unique key {@code key}, which it must hold a history of. */
        long keyCount(UniqueKey key, Row value) {
            TraceSnapshot h = key.equals(arrangedBy) ? history : extras.get(key);
            if (h == null) {
                throw new IllegalStateException("no history of key '" + key.name() + "'");
            }
            long[] sum = new long[1];
            h.lookup(value, Long.MAX_VALUE, (v, d) -> sum[0] += d);
            return sum[0];
        }
    }

    private volatile Applied applied;

    /** The published history and how far into the admitted writes it goes; any thread. */
    Applied applied() {
        return applied;
    }

    /** Allows compaction up to {@code frontier}. */
    void advanceSince(long frontier) {
        if (frontier > since) {
            since = frontier;
            sinceHold.downgrade(Frontier.at(frontier));
            idleMerge(spine, frontier);
            for (KeyHistory x : extras) {
                if (x.spine != null) {
                    x.hold.downgrade(Frontier.at(frontier));
                    idleMerge(x.spine, frontier);
                }
            }
            republish();
        }
    }

    /** Idle merging: folds history into the live rows at the new frontier once writes stop. */
    private static void idleMerge(Spine spine, long frontier) {
        TraceSnapshot snap = spine.snapshot();
        if (snap.batches().size() > 1 || snap.batches().size() == 1 && snap.batches().get(0).since().time() < frontier) {
            spine.insert(Batch.empty(spine.upper(), spine.upper(), spine.since()));
        }
    }


    /** Updates held (a measure of memory and of the log's consolidated size). */
    long size() {
        return spine.snapshot().records();
    }

    /** The history as it is now: immutable, readable from any thread without the storage's lock. */
    TraceSnapshot history() {
        return spine.snapshot();
    }

    /**
     * The snapshot at {@code asOf} of {@code history} (rows with their non-zero multiplicities at
     * {@code asOf}, in the history's order) and the updates after it, in time order; {@code keyed}
     * says the history is arranged by a key, the rows being its values.
     */
    static Snapshot read(TraceSnapshot history, long asOf, boolean keyed) {
        PackedUpdates.Builder at = new PackedUpdates.Builder();
        SnapshotVisitor v = new SnapshotVisitor(asOf, keyed);
        Cursor c = history.cursor();
        while (c.keyValid()) {
            v.row = c.key();
            v.sum = 0;
            if (keyed) {
                c.accumulate(asOf, (row, diff) -> at.add(row, asOf, diff));
            }
            c.forEachUpdate(v);
            if (v.sum != 0 && !keyed) {
                at.add(v.row, asOf, v.sum);
            }
            c.stepKey();
        }
        v.later.sort((a, b) -> Long.compare(a[0], b[0]));
        PackedUpdates.Builder after = new PackedUpdates.Builder();
        for (long[] u : v.later) {
            after.add(v.laterRows.get((int) u[2]), u[0], u[1]);
        }
        return new Snapshot(at.build(), after.build());
    }

    /**
     * Sums one row's updates at or before {@code asOf} and sets aside those after; one for a whole read,
     * not one per row. In a keyed history the row is the value, and the sums are taken by accumulation.
     */
    private static final class SnapshotVisitor implements Cursor.ValUpdate {
        private final long asOf;
        private final boolean keyed;
        private final List<long[]> later = new ArrayList<>();
        private final List<Row> laterRows = new ArrayList<>();
        private Row row;
        private long sum;

        SnapshotVisitor(long asOf, boolean keyed) {
            this.asOf = asOf;
            this.keyed = keyed;
        }

        @Override
        public void accept(Row val, long time, long diff) {
            if (time <= asOf) {
                sum += diff;
            } else {
                later.add(new long[] {time, diff, laterRows.size()});
                laterRows.add(keyed ? val : row);
            }
        }
    }

    /** A snapshot and the updates after it. */
    record Snapshot(PackedUpdates at, PackedUpdates later) {
    }

    /** Where merging the history down, begun now, goes: its compaction frontier now. */
    Frontier compactionTarget() {
        return spine.since();
    }

    /**
     * One bounded step ({@code fuel} units of merge work) of merging the history down to {@code target}
     * ({@link #compactionTarget()} when the steps began); returns whether work remains. What a finished
     * merge changed is published.
     */
    boolean compactStep(long fuel, Frontier target) {
        boolean more = spine.compactStep(fuel, target);
        for (KeyHistory x : extras) {
            more |= x.spine != null && x.spine.compactStep(fuel, target);
        }
        republish();
        return more;
    }

    /**
     * {@code history} consolidated at {@code frontier}: updates at or before it advanced to it and
     * summed, as writes of table {@code id} in time order (for rewriting the log).
     */
    static List<LogRecord.Write> consolidated(String id, TraceSnapshot history, long frontier, boolean keyed) {
        Snapshot s = read(history, frontier, keyed);
        List<LogRecord.Write> out = new ArrayList<>();
        addWrites(id, s.at(), out);
        addWrites(id, s.later(), out);
        return out;
    }

    /** Appends {@code updates} (in time order) as one write per timestamp. */
    private static void addWrites(String id, PackedUpdates updates, List<LogRecord.Write> out) {
        for (int i = 0; i < updates.size(); ) {
            long time = updates.time(i);
            List<RowDiff> same = new ArrayList<>();
            for (; i < updates.size() && updates.time(i) == time; i++) {
                same.add(new RowDiff(updates.row(i), updates.diff(i)));
            }
            out.add(new LogRecord.Write(id, time, same));
        }
    }

    /** A subscription: its read time, its sink, and whether it has had its snapshot. */
    static final class Subscriber {
        final long asOf;
        final Sinks.Many<TableEvent> sink = Sinks.many().unicast().onBackpressureBuffer();
        boolean primed;
        /** While its snapshot is read outside the lock: the events applied meanwhile, sent after it. */
        List<TableEvent> held;
        /** The table was dropped while the snapshot was read: complete after the held events. */
        boolean completed;

        Subscriber(long asOf) {
            this.asOf = asOf;
        }
    }
}
