package dev.tandem.stream;

import dev.tandem.expr.MfpEvaluator;
import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.trace.TraceSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads a change stream's messages from snapshots of a shared arrangement: the snapshot at a time,
 * and the changes at the times in {@code (after, before)}, each consolidated after the filter and
 * projection. Reads only immutable snapshots; the caller's hold keeps them exact (compaction never
 * passes {@code after}, so every update at a later time keeps its own time).
 */
final class ChangeReader {

    private final SharedArrangement arrangement;
    private final List<Row> keys;
    private final MfpEvaluator mfp;
    private final Envelope envelope;

    ChangeReader(SharedArrangement arrangement, List<Row> keys, MfpEvaluator mfp, Envelope envelope) {
        this.arrangement = arrangement;
        this.keys = keys;
        this.mfp = mfp;
        this.envelope = envelope;
    }

    /** The snapshot at {@code t}: rows of positive multiplicity, or for upsert each key's value. */
    List<ChangeMessage.Change> snapshot(SnapshotReads reads, long t) {
        SharedArrangement.Snapshot snap = reads.snapshot();
        checkErrors(snap, t);
        if (envelope == Envelope.UPSERT) {
            TreeSet<Row> present = new TreeSet<>();
            visitAt(snap, t, (key, val, diff) -> present.add(key));
            List<ChangeMessage.Change> out = new ArrayList<>();
            for (Row key : present) {
                Row v = valueAt(snap, key, t);
                if (v != null) {
                    out.add(new ChangeMessage.Upsert(key, v));
                }
            }
            return out;
        }
        TreeMap<Row, Long> rows = new TreeMap<>();
        visitAt(snap, t, (key, val, diff) -> {
            if (diff > 0) {
                Row out = shape(val);
                if (out != null) {
                    rows.merge(out, diff, Long::sum);
                }
            }
        });
        return diffs(rows);
    }

    /** Receives the changes at one time. */
    interface TimeChanges {
        void accept(long time, List<ChangeMessage.Change> changes);
    }

    /**
     * Hands {@code out} the changes at each time in {@code (after, before)}, in time order (times with
     * no visible change are skipped); a failure at one time comes after the times before it.
     */
    void changes(SnapshotReads reads, long after, long before, TimeChanges out) {
        SharedArrangement.Snapshot snap = reads.snapshot();
        if (envelope == Envelope.UPSERT) {
            TreeMap<Long, TreeSet<Row>> changedKeys = new TreeMap<>();
            visitUpdates(reads, after, before, (key, val, time, diff) -> changedKeys.computeIfAbsent(time, x -> new TreeSet<>()).add(key));
            for (Map.Entry<Long, TreeSet<Row>> e : changedKeys.entrySet()) {
                long t = e.getKey();
                checkErrors(snap, t);
                List<ChangeMessage.Change> changes = new ArrayList<>();
                for (Row key : e.getValue()) {
                    Row before1 = valueAt(snap, key, t - 1);
                    Row now = valueAt(snap, key, t);
                    if (before1 == null ? now != null : !before1.equals(now)) {
                        changes.add(new ChangeMessage.Upsert(key, now));
                    }
                }
                if (!changes.isEmpty()) {
                    out.accept(t, changes);
                }
            }
            return;
        }
        TreeMap<Long, TreeMap<Row, Long>> byTime = new TreeMap<>();
        visitUpdates(reads, after, before, (key, val, time, diff) -> {
            Row shaped = shape(val);
            if (shaped != null) {
                byTime.computeIfAbsent(time, x -> new TreeMap<>()).merge(shaped, diff, Long::sum);
            }
        });
        for (Map.Entry<Long, TreeMap<Row, Long>> e : byTime.entrySet()) {
            checkErrors(snap, e.getKey());
            List<ChangeMessage.Change> changes = diffs(e.getValue());
            if (!changes.isEmpty()) {
                out.accept(e.getKey(), changes);
            }
        }
        if (before - 1 > after) {
            checkErrors(snap, before - 1);
        }
    }

    private static List<ChangeMessage.Change> diffs(TreeMap<Row, Long> rows) {
        List<ChangeMessage.Change> out = new ArrayList<>(rows.size());
        rows.forEach((row, diff) -> {
            if (diff != 0) {
                out.add(new ChangeMessage.Diff(row, diff));
            }
        });
        return out;
    }

    private Row shape(Row val) {
        return mfp == null ? val : mfp.apply(val);
    }

    /** The single value of {@code key} at {@code t} after the filter and projection, or null; several are an error. */
    private Row valueAt(SharedArrangement.Snapshot snap, Row key, long t) {
        List<Row> values = new ArrayList<>();
        long[] copies = new long[1];
        shardOf(snap, key).lookup(key, t, (val, diff) -> {
            if (diff > 0) {
                Row out = shape(val);
                if (out != null) {
                    values.add(out);
                    copies[0] += diff;
                }
            }
        });
        if (copies[0] > 1) {
            throw new ChangeStreamException(ChangeStreamException.Kind.FAILED, "envelope upsert needs at most one row per key, but key "
                    + key + " of index " + arrangement.id() + " has " + copies[0] + " rows at " + t, null);
        }
        return values.isEmpty() ? null : values.get(0);
    }

    private TraceSnapshot shardOf(SharedArrangement.Snapshot snap, Row key) {
        return snap.oks().get(SharedArrangement.shardOf(key, snap.oks().size()));
    }

    private interface KeyValDiff {
        void accept(Row key, Row val, long diff);
    }

    private interface KeyValTimeDiff {
        void accept(Row key, Row val, long time, long diff);
    }

    /** Every (key, value) of the watched keys with a non-zero accumulation at {@code t}. */
    private void visitAt(SharedArrangement.Snapshot snap, long t, KeyValDiff out) {
        if (keys != null) {
            for (Row key : keys) {
                shardOf(snap, key).lookup(key, t, (val, diff) -> out.accept(key, val, diff));
            }
            return;
        }
        for (TraceSnapshot shard : snap.oks()) {
            shard.scan(t, out::accept);
        }
    }

    /** Every update of the watched keys at a time in {@code (after, before)}, read once for all streams of the snapshot. */
    private void visitUpdates(SnapshotReads reads, long after, long before, KeyValTimeDiff out) {
        if (keys != null) {
            for (Row key : keys) {
                for (SnapshotReads.Update u : reads.updates(key, after, before)) {
                    out.accept(key, u.val(), u.time(), u.diff());
                }
            }
            return;
        }
        for (SnapshotReads.Update u : reads.updates(after, before)) {
            out.accept(u.key(), u.val(), u.time(), u.diff());
        }
    }

    /** Ends the stream if the collection holds an error at {@code t}, as a read at {@code t} would answer it. */
    private void checkErrors(SharedArrangement.Snapshot snap, long t) {
        String error = snap.firstError(t);
        if (error != null) {
            throw new ChangeStreamException(ChangeStreamException.Kind.FAILED, "index " + arrangement.id() + " holds an error at " + t
                    + ": " + error, null);
        }
    }
}
