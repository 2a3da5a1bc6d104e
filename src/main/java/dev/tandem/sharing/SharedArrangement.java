package dev.tandem.sharing;

import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import dev.tandem.trace.TraceSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * An exported index as published by its runtime: the {@code oks} and {@code errs} traces, sharded by
 * key hash across the publisher's workers. Readers on any thread take snapshots and holds; only the
 * publisher's workers mutate the spines.
 *
 * <p>{@code oks} rows are {@code (key, row)}: the key columns of the indexed collection, then the
 * whole row. {@code errs} rows are {@code (message)} with the index key of the row that failed as
 * value, or an empty value when that key is not known (such an error fails every read).
 */
public record SharedArrangement(String id, Schema schema, List<Integer> keyColumns, List<Spine> oks, List<Spine> errs) {

    public SharedArrangement {
        keyColumns = List.copyOf(keyColumns);
        oks = List.copyOf(oks);
        errs = List.copyOf(errs);
    }

    /** The shard that holds {@code key}, for {@code shards} shards. */
    public static int shardOf(Row key, int shards) {
        int h = key.hashCode() * 0x9E3779B9;
        return Math.floorMod(h ^ (h >>> 16), shards);
    }

    public int shards() {
        return oks.size();
    }

    /** Snapshots of every shard of both traces, taken now. */
    public Snapshot snapshot() {
        List<TraceSnapshot> o = new ArrayList<>(oks.size());
        for (Spine s : oks) {
            o.add(s.snapshot());
        }
        List<TraceSnapshot> e = new ArrayList<>(errs.size());
        for (Spine s : errs) {
            e.add(s.snapshot());
        }
        return new Snapshot(o, e);
    }

    /** A hold on every shard of both traces, released together. */
    public ReadHold acquireHold(String holder, Frontier frontier) {
        List<ReadHold> holds = new ArrayList<>();
        for (Spine s : oks) {
            holds.add(s.acquireHold(holder, frontier));
        }
        for (Spine s : errs) {
            holds.add(s.acquireHold(holder, frontier));
        }
        return new CompositeHold(holder, holds);
    }

    /** Consistent-enough snapshots of all shards; reads at {@code since() <= t < upper()} are exact. */
    public record Snapshot(List<TraceSnapshot> oks, List<TraceSnapshot> errs) {

        public Frontier upper() {
            Frontier u = Frontier.EMPTY;
            for (TraceSnapshot s : oks) {
                u = u.meet(s.upper());
            }
            for (TraceSnapshot s : errs) {
                u = u.meet(s.upper());
            }
            return u;
        }

        public Frontier since() {
            Frontier f = Frontier.MIN;
            for (TraceSnapshot s : oks) {
                f = f.join(s.since());
            }
            for (TraceSnapshot s : errs) {
                f = f.join(s.since());
            }
            return f;
        }

        /** The first error message (in message order) with a positive count at {@code t}, across shards, or null. */
        public String firstError(long t) {
            return firstError(t, null);
        }

        /** The message of {@link #firstErrorRow(long, java.util.Collection)}, or null. */
        public String firstError(long t, java.util.Collection<Row> keys) {
            Row error = firstErrorRow(t, keys);
            return error == null ? null : (String) error.get(0);
        }

        /**
         * The first error (in message order) at {@code t} that a read of {@code keys} meets, as its row
         * {@code (message, code)}, or null: an error not keyed by the index's key meets every read; one keyed by
         * it meets reads of its key. Null {@code keys} reads every key.
         */
        public Row firstErrorRow(long t, java.util.Collection<Row> keys) {
            boolean none = true;
            for (TraceSnapshot s : errs) {
                none &= s.records() == 0;
            }
            if (none) {
                return null;
            }
            java.util.Set<Row> wanted = keys == null ? null : new java.util.HashSet<>(keys);
            java.util.Map<Row, Long> counts = new java.util.TreeMap<>();
            for (TraceSnapshot s : errs) {
                s.scan(t, (error, key, d) -> {
                    if (wanted == null || key.arity() == 0 || wanted.contains(key)) {
                        counts.merge(error, d, Long::sum);
                    }
                });
            }
            for (java.util.Map.Entry<Row, Long> e : counts.entrySet()) {
                if (e.getValue() > 0) {
                    return e.getKey();
                }
            }
            return null;
        }

        /**
         * The first error in the data at the latest time readable ({@code upper - 1}), or null when there is
         * none (or nothing is readable yet).
         */
        public String latestError() {
            Frontier u = upper();
            if (u.isEmpty() || u.time() == 0 || !since().lessEqual(u.time() - 1)) {
                return null;
            }
            return firstError(u.time() - 1);
        }

        public long records() {
            long n = 0;
            for (TraceSnapshot s : oks) {
                n += s.records();
            }
            return n;
        }

        public long byteSize() {
            long n = 0;
            for (TraceSnapshot s : oks) {
                n += s.byteSize();
            }
            for (TraceSnapshot s : errs) {
                n += s.byteSize();
            }
            return n;
        }
    }

    private static final class CompositeHold implements ReadHold {
        private final String holder;
        private final List<ReadHold> parts;

        CompositeHold(String holder, List<ReadHold> parts) {
            this.holder = holder;
            this.parts = parts;
        }

        @Override
        public String holder() {
            return holder;
        }

        @Override
        public Frontier frontier() {
            Frontier f = Frontier.EMPTY;
            for (ReadHold h : parts) {
                f = f.meet(h.frontier());
            }
            return f;
        }

        @Override
        public void downgrade(Frontier frontier) {
            for (ReadHold h : parts) {
                h.downgrade(frontier);
            }
        }

        @Override
        public void release() {
            for (ReadHold h : parts) {
                h.release();
            }
        }
    }
}
