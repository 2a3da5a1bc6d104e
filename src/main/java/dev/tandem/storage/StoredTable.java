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
 * unique key has a history of its own holding only the key's columns (NULL keys left out: they are
 * never duplicates), consolidated at the same compaction frontier.
 */
final class StoredTable {

    final String id;
    final Schema schema;
    final List<UniqueKey> keys;
    /** The columns the history is arranged by (the first key's), or null: arranged by the whole row. */
    private final int[] arranged;
    /** The columns of each further key, and its history, hold and staged updates. */
    private final int[][] extraColumns;
    private final Spine[] extraSpines;
    private final ReadHold[] extraHolds;
    private final BatchBuilder[] extraPending;
    /** The compaction frontier: reads at or after it are exact. */
    long since;
    final List<Subscriber> subscribers = new ArrayList<>();

    private final Spine spine;
    private final ReadHold sinceHold;
    private final BatchBuilder pending = new BatchBuilder();
    private long pendingMaxTime = -1;

    StoredTable(String id, Schema schema) {
        this(id, schema, List.of());
    }

    StoredTable(String id, Schema schema, List<UniqueKey> keys) {
        this.id = id;
        this.schema = schema;
        this.keys = List.copyOf(keys);
        this.arranged = keys.isEmpty() ? null : keys.get(0).positions();
        int extras = Math.max(0, keys.size() - 1);
        this.extraColumns = new int[extras][];
        this.extraSpines = new Spine[extras];
        this.extraHolds = new ReadHold[extras];
        this.extraPending = new BatchBuilder[extras];
        for (int i = 0; i < extras; i++) {
            UniqueKey k = keys.get(i + 1);
            extraColumns[i] = k.positions();
            extraSpines[i] = new Spine("key " + k.name() + " of table " + id, Frontier.MIN);
            extraHolds[i] = extraSpines[i].acquireHold("compaction frontier of table " + id, Frontier.MIN);
            extraPending[i] = new BatchBuilder();
        }
        this.spine = new Spine("table " + id, Frontier.MIN);
        this.sinceHold = spine.acquireHold("compaction frontier of table " + id, Frontier.MIN);
        this.applied = new Applied(spine.snapshot(), extraSnapshots(), arranged, -1);
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
            for (int i = 0; i < extraColumns.length; i++) {
                Row key = row.project(extraColumns[i]);
                if (!key.hasNull()) {
                    extraPending[i].add(key, Row.EMPTY, time, diff);
                }
            }
        }
        pendingMaxTime = Math.max(pendingMaxTime, time);
    }

    private TraceSnapshot[] extraSnapshots() {
        TraceSnapshot[] out = new TraceSnapshot[extraSpines.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = extraSpines[i].snapshot();
        }
        return out;
    }

    /** Whether the published view lags the histories (a write or a merge changed them). */
    private boolean stale() {
        if (applied.history() != spine.snapshot()) {
            return true;
        }
        for (int i = 0; i < extraSpines.length; i++) {
            if (applied.extras()[i] != extraSpines[i].snapshot()) {
                return true;
            }
        }
        return false;
    }

    /** Moves the staged updates into the history as one batch. */
    void flush(long appliedSeq) {
        if (pending.size() != 0) {
            Frontier lower = spine.upper();
            Frontier upper = Frontier.at(Math.max(pendingMaxTime + 1, lower.time()));
            spine.insert(pending.build(lower, upper, spine.since()));
            for (int i = 0; i < extraSpines.length; i++) {
                // every key history spans what the table's does, rows with NULL keys or not
                extraSpines[i].insert(extraPending[i].build(lower, upper, extraSpines[i].since()));
            }
            pendingMaxTime = -1;
        }
        if (appliedSeq > applied.seq() || stale()) {
            applied = new Applied(spine.snapshot(), extraSnapshots(), arranged, Math.max(appliedSeq, applied.seq()));
        }
    }

    /**
     * Publishes the spine's current snapshot after merges that no write made (idle merging, full
     * compaction): the same rows, so the same sequence number. Without it the published history would
     * keep the merged-away batches alive beside their merge for as long as no write comes.
     */
    private void republish() {
        if (stale()) {
            applied = new Applied(spine.snapshot(), extraSnapshots(), arranged, applied.seq());
        }
    }

    /**
     * The history (and the histories of the further keys) as published together with the sequence
     * number of the last write applied to it; {@code arranged} as the table's.
     */
    record Applied(TraceSnapshot history, TraceSnapshot[] extras, int[] arranged, long seq) {

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

        /** How many rows hold {@code key} (in key order) of the table's {@code k}th unique key. */
        long keyCount(int k, Row key) {
            long[] sum = new long[1];
            (k == 0 ? history : extras[k - 1]).lookup(key, Long.MAX_VALUE, (v, d) -> sum[0] += d);
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
            for (int i = 0; i < extraSpines.length; i++) {
                extraHolds[i].downgrade(Frontier.at(frontier));
                idleMerge(extraSpines[i], frontier);
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
        for (Spine extra : extraSpines) {
            more |= extra.compactStep(fuel, target);
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
