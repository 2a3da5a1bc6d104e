package dev.tandem.render;

import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.Cursor;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import dev.tandem.trace.TraceSnapshot;
import java.util.List;
import java.util.function.Supplier;

/**
 * One step of a linear equi-join: the left input (rows of the inputs joined so far) with the right
 * input, both arranged by their key columns. Output rows are {@code left ++ right}, at the later of
 * the two times, with the product of the diffs; rows with a NULL key never match, and the
 * {@code residual} equivalence classes (output column positions) must hold as well.
 *
 * <p>A round {@code [F0, F)} pairs each new left update with the right updates strictly before it
 * (old ones and new ones at earlier times), and each new right update with the left updates at or
 * before it, so every pair is produced exactly once. The right side is either a local arrangement
 * or an imported shared arrangement read in place, zero-copy, whose errors join the dataflow's errors.
 */
final class JoinOperator extends Operator {

    private final int[] leftKey;
    private final int[] rightKey;
    private final List<int[]> residual;
    private final long asOf;
    /** The imported arrangement read as the right side, or null to arrange the right input locally. */
    private final Supplier<SharedArrangement.Snapshot> shared;
    private final int workers;

    JoinOperator(Operator left, Operator right, int[] leftKey, int[] rightKey, List<int[]> residual, long asOf,
            Supplier<SharedArrangement.Snapshot> shared, int workers) {
        super("join", right == null ? new Operator[] {left} : new Operator[] {left, right});
        this.leftKey = leftKey;
        this.rightKey = rightKey;
        this.residual = residual;
        this.asOf = asOf;
        this.shared = shared;
        this.workers = workers;
    }

    /** Whether the right side is an imported arrangement read in place (its raw history, not a snapshot). */
    boolean readsInPlace() {
        return shared != null;
    }

    @Override
    Partitioner partitioner(int port) {
        return Partitioners.byColumns(port == 0 ? leftKey : rightKey);
    }

    @Override
    Shard shard(int w) {
        return new JoinShard(w);
    }

    private final class JoinShard implements Shard {
        private final int w;
        private final Spine left = new Spine("join left", Frontier.at(asOf));
        private final ReadHold leftHold = left.acquireHold("join", Frontier.at(asOf));
        private final Spine right = shared == null ? new Spine("join right", Frontier.at(asOf)) : null;
        private final ReadHold rightHold = right == null ? null : right.acquireHold("join", Frontier.at(asOf));
        private final BatchBuilder builder = new BatchBuilder();

        JoinShard(int w) {
            this.w = w;
        }

        @Override
        public long residentBytes() {
            return left.snapshot().byteSize() + (right == null ? 0 : right.snapshot().byteSize());
        }

        /**
         * The round's updates of one input keyed by {@code key}, without those whose key has a NULL (it
         * matches nothing). Without such keys (the common case) the builder sorts the input buffer where
         * it lies (it is this step's own and cleared after it) instead of copying each row and its key.
         */
        private Batch arrange(Updates u, int[] key, Round round, Spine spine) {
            if (u.anyNullAt(key)) {
                for (int i = 0; i < u.size; i++) {
                    Row row = u.row(i);
                    Row k = row.project(key);
                    if (!k.hasNull()) {
                        builder.add(k, row, u.times[i], u.diffs[i]);
                    }
                }
            } else {
                u.arrangeInto(builder, key, n -> { });
            }
            return builder.build(Frontier.at(round.lower()), Frontier.at(round.upper()), spine.since());
        }

        @Override
        public void step(Updates[] in, Round round, Updates out, Updates errs) {
            Batch dLeft = arrange(in[0], leftKey, round, left);
            TraceSnapshot leftOld = left.snapshot();
            if (right != null) {
                Batch dRight = arrange(in[1], rightKey, round, right);
                TraceSnapshot rightOld = right.snapshot();
                // New left against old right and against new right strictly earlier (none when no new
                // right update is earlier than the latest new left one: a snapshot, all at as_of, skips
                // what would be a pass over every pair of it that emits nothing).
                pairs(dLeft.cursor(), rightOld, false, out);
                if (minTime(in[1]) < maxTime(in[0])) {
                    pairs(dLeft.cursor(), new TraceSnapshot(List.of(dRight), Frontier.EMPTY, Frontier.MIN), true, out);
                }
                left.insert(dLeft);
                right.insert(dRight);
                // New right against all left at or before it.
                pairsRightFirst(dRight.cursor(), left.snapshot(), out);
                leftHold.downgrade(Frontier.at(round.upper()));
                rightHold.downgrade(Frontier.at(round.upper()));
                return;
            }
            SharedArrangement.Snapshot snap = shared.get();
            ImportOperator.read(snap.errs(), w, workers, asOf, round, errs, true);
            // New left against the shared updates strictly before it (effective time max(t, as_of)).
            Cursor lc = dLeft.cursor();
            while (lc.keyValid()) {
                Row k = lc.key();
                TraceSnapshot shard = snap.oks().get(SharedArrangement.shardOf(k, snap.oks().size()));
                Cursor rc = shard.cursor();
                rc.seekKey(k);
                if (rc.keyValid() && rc.key().equals(k)) {
                    lc.forEachUpdate((a, ta, da) -> rc.forEachUpdate((b, tb, db) -> {
                        long eb = Math.max(tb, asOf);
                        if (eb < ta && eb < round.upper()) {
                            emit(a, b, ta, da * db, out);
                        }
                    }));
                }
                lc.stepKey();
            }
            left.insert(dLeft);
            TraceSnapshot leftNow = left.snapshot();
            // New shared updates (effective time in [F0, F)) against left at or before them.
            if (round.first()) {
                Cursor ac = leftNow.cursor();
                while (ac.keyValid()) {
                    Row k = ac.key();
                    TraceSnapshot shard = snap.oks().get(SharedArrangement.shardOf(k, snap.oks().size()));
                    Cursor rc = shard.cursor();
                    rc.seekKey(k);
                    if (rc.keyValid() && rc.key().equals(k)) {
                        joinNewShared(ac, rc, round, out);
                    }
                    ac.stepKey();
                }
            } else {
                for (TraceSnapshot shard : snap.oks()) {
                    List<Batch> fresh = shard.batches().stream().filter(b -> b.upper().compareTo(Frontier.at(round.lower())) > 0).toList();
                    Cursor rc = new TraceSnapshot(fresh, shard.upper(), shard.since()).cursor();
                    while (rc.keyValid()) {
                        Row k = rc.key();
                        if (workers == 1 || SharedArrangement.shardOf(k, workers) == w) {
                            Cursor ac = leftNow.cursor();
                            ac.seekKey(k);
                            if (ac.keyValid() && ac.key().equals(k)) {
                                joinNewShared(ac, rc, round, out);
                            }
                        }
                        rc.stepKey();
                    }
                }
            }
            leftHold.downgrade(Frontier.at(round.upper()));
        }

        private void joinNewShared(Cursor ac, Cursor rc, Round round, Updates out) {
            if (rc.key().hasNull()) {
                return;
            }
            rc.forEachUpdate((b, tb, db) -> {
                long eb = Math.max(tb, asOf);
                if (eb >= round.lower() && eb < round.upper()) {
                    ac.forEachUpdate((a, ta, da) -> {
                        if (ta <= eb) {
                            emit(a, b, eb, da * db, out);
                        }
                    });
                }
            });
        }
    }

    private static long minTime(Updates u) {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < u.size; i++) {
            min = Math.min(min, u.times[i]);
        }
        return min;
    }

    private static long maxTime(Updates u) {
        long max = Long.MIN_VALUE;
        for (int i = 0; i < u.size; i++) {
            max = Math.max(max, u.times[i]);
        }
        return max;
    }

    /**
     * For each update of the delta's keys, pairs it with the matching updates of {@code other}: all of
     * them when {@code strictlyEarlier} is false, else those at times strictly before it.
     */
    private void pairs(Cursor delta, TraceSnapshot other, boolean strictlyEarlier, Updates out) {
        Cursor oc = other.cursor();
        Pairing pairing = new Pairing(oc, strictlyEarlier ? Pairing.LEFT_DELTA_EARLIER : Pairing.LEFT_DELTA, out);
        while (delta.keyValid()) {
            Row k = delta.key();
            oc.seekKey(k);
            if (oc.keyValid() && oc.key().equals(k)) {
                delta.forEachUpdate(pairing);
            }
            delta.stepKey();
        }
    }

    /** Pairs each right delta update with the left updates at or before it. */
    private void pairsRightFirst(Cursor dRight, TraceSnapshot leftAll, Updates out) {
        Cursor lc = leftAll.cursor();
        Pairing pairing = new Pairing(lc, Pairing.RIGHT_DELTA, out);
        while (dRight.keyValid()) {
            Row k = dRight.key();
            lc.seekKey(k);
            if (lc.keyValid() && lc.key().equals(k)) {
                dRight.forEachUpdate(pairing);
            }
            dRight.stepKey();
        }
    }

    /**
     * The two loops of pairing a delta's updates of a key with the other side's ({@code other}, on the
     * same key): one object per pass over a delta, not a closure per update.
     */
    private final class Pairing implements Cursor.ValUpdate {
        /** The delta is the left input; every other update pairs, at the later time. */
        static final int LEFT_DELTA = 0;
        /** The delta is the left input; other updates strictly earlier pair, at the delta's time. */
        static final int LEFT_DELTA_EARLIER = 1;
        /** The delta is the right input; left updates at or before it pair, at its time. */
        static final int RIGHT_DELTA = 2;

        private final Cursor other;
        private final int mode;
        private final Updates out;
        private final Cursor.ValUpdate inner = this::pairWith;
        private Row d;
        private long td;
        private long dd;

        Pairing(Cursor other, int mode, Updates out) {
            this.other = other;
            this.mode = mode;
            this.out = out;
        }

        /** One update of the delta: pairs it with every update of the other side's current key. */
        @Override
        public void accept(Row row, long time, long diff) {
            d = row;
            td = time;
            dd = diff;
            other.forEachUpdate(inner);
        }

        private void pairWith(Row o, long to, long diff) {
            switch (mode) {
                case LEFT_DELTA -> emit(d, o, Math.max(td, to), dd * diff, out);
                case LEFT_DELTA_EARLIER -> {
                    if (to < td) {
                        emit(d, o, td, dd * diff, out);
                    }
                }
                default -> {
                    if (to <= td) {
                        emit(o, d, td, diff * dd, out);
                    }
                }
            }
        }
    }


    /** Adds the joined row {@code a ++ b}, if it satisfies the residual classes, without decoding or building it. */
    private void emit(Row a, Row b, long time, long diff, Updates out) {
        if (!residual.isEmpty()) {
            int split = a.arity();
            for (int[] cls : residual) {
                Row first = cls[0] < split ? a : b;
                int column = cls[0] < split ? cls[0] : cls[0] - split;
                for (int i = 1; i < cls.length; i++) {
                    boolean left = cls[i] < split;
                    if (!first.sqlEquals(column, left ? a : b, left ? cls[i] : cls[i] - split)) {
                        return;
                    }
                }
            }
        }
        out.add(a, b, time, diff);
    }
}
