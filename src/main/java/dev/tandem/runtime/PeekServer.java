package dev.tandem.runtime;

import dev.tandem.expr.DataError;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.protocol.ComputeCommand.Peek;
import dev.tandem.protocol.ComputeResponse.Error;
import dev.tandem.protocol.ComputeResponse.ErrorKind;
import dev.tandem.protocol.ComputeResponse.PeekResult;
import dev.tandem.protocol.ComputeResponse.ReadInfo;
import dev.tandem.protocol.ComputeResponse.Rows;
import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.trace.TraceSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * Answers a peek from a published arrangement that is sealed past the read time: checks
 * {@code since}, answers the first error in {@code errs} that the read meets (any, or one of its
 * literal keys') if any, else walks {@code oks} (seeking the
 * literal keys, or scanning), accumulates at the read time, applies the MFP and the finishing, and
 * enforces the maximum result size. Reads snapshots only: no locks, no row copies.
 */
final class PeekServer {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PeekServer.class);
    /** Arrangements already warned about for holding rows of negative multiplicity. */
    private static final java.util.Set<String> WARNED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private PeekServer() {
    }

    /**
     * Answers {@code peek} from {@code arr}. {@code hydrated} is whether the dataflow exporting it has
     * hydrated, when this runtime runs it; null derives it from the arrangement (sealed past its
     * compaction frontier, which starts at the dataflow's {@code as_of}).
     */
    static PeekResult answer(Peek peek, SharedArrangement arr, long maxResultRows, String runtime, Boolean hydrated) {
        long t = peek.timestamp();
        SharedArrangement.Snapshot snap = arr.snapshot();
        if (!snap.upper().isPast(t)) {
            return Error.failed(EvalError.Code.DATA_EXCEPTION, "index " + arr.id() + " is not sealed at " + t + " (upper " + snap.upper() + ")");
        }
        if (snap.since().compareTo(dev.tandem.time.Frontier.at(t)) > 0) {
            return new Error(ErrorKind.BEFORE_SINCE, "compaction frontier of " + arr.id() + " is " + snap.since() + ", beyond the read time " + t);
        }
        Row err = snap.firstErrorRow(t, peek.literalKeys());
        if (err != null) {
            return Error.failed(DataError.of(err));
        }
        MfpEvaluator mfp;
        try {
            mfp = peek.mfp().isIdentity() ? null : peek.mfp().bind(arr.schema().types());
        } catch (RuntimeException e) {
            return new Error(ErrorKind.INVALID, "invalid peek MFP: " + e.getMessage());
        }
        long limit = peek.maxResultRows() != null ? peek.maxResultRows() : maxResultRows;
        Collector rows = new Collector(peek, limit);
        try {
            if (peek.literalKeys() != null) {
                int shards = snap.oks().size();
                for (Row key : peek.literalKeys()) {
                    TraceSnapshot shard = snap.oks().get(SharedArrangement.shardOf(key, shards));
                    shard.lookup(key, t, (val, diff) -> rows.add(val, diff, mfp));
                }
            } else {
                for (TraceSnapshot shard : snap.oks()) {
                    shard.scan(t, (key, val, diff) -> rows.add(val, diff, mfp));
                }
            }
            if (rows.negatives > 0 && WARNED.add(arr.id())) {
                LOG.warn("index {} holds {} row(s) with a negative multiplicity at {} (written before writes were checked"
                        + " against the table's counts); reads skip them", arr.id(), rows.negatives, t);
            }
            return new Rows(rows.finish(), new ReadInfo(t, snap.upper(), snap.since(),
                    hydrated != null ? hydrated : snap.upper().compareTo(snap.since()) > 0, runtime));
        } catch (PeekFailure f) {
            return new Error(f.kind, f.getMessage());
        } catch (EvalError e) {
            return Error.failed(e.error());
        }
    }

    /** A peek that cannot be answered with rows. */
    static final class PeekFailure extends RuntimeException {
        final ErrorKind kind;

        PeekFailure(ErrorKind kind, String message) {
            super(message, null, false, false);
            this.kind = kind;
        }
    }

    /**
     * Gathers output rows with multiplicities, thinning early to the best {@code offset + limit} rows
     * when the finishing has a limit, and failing once more rows than allowed are held.
     */
    private static final class Collector {
        private final Comparator<Row> order;
        private final long keep;
        private final long offset;
        private final long maxRows;
        private final PriorityQueue<Object[]> best;
        private final List<Object[]> all = new ArrayList<>();
        private long held;

        Collector(Peek peek, long maxRows) {
            this.order = GroupFunctions.orderBy(peek.finishing().orderBy());
            this.offset = peek.finishing().offset();
            Long limit = peek.finishing().limit();
            this.keep = limit == null ? -1 : (Long.MAX_VALUE - offset < limit ? Long.MAX_VALUE : offset + limit);
            this.maxRows = maxRows;
            this.best = keep >= 0 ? new PriorityQueue<>((a, b) -> order.compare((Row) b[0], (Row) a[0])) : null;
        }

        /** Rows of negative multiplicity seen (and skipped). */
        long negatives;

        void add(Row val, long diff, MfpEvaluator mfp) {
            if (diff < 0) {
                // Only data written before writes were checked can hold one; it must not make every read fail.
                negatives++;
                return;
            }
            Row out = mfp == null ? val : mfp.apply(val);
            if (out == null) {
                return;
            }
            Object[] entry = {out, diff};
            if (best != null) {
                best.add(entry);
                held += diff;
                while (!best.isEmpty() && held - (long) best.peek()[1] >= keep) {
                    held -= (long) best.poll()[1];
                }
            } else {
                all.add(entry);
                held += diff;
                if (held > maxRows) {
                    throw new PeekFailure(ErrorKind.TOO_LARGE, "result exceeds the maximum result size of " + maxRows + " rows; add a limit or a filter");
                }
            }
        }

        List<Row> finish() {
            List<Object[]> entries = best != null ? new ArrayList<>(best) : all;
            entries.sort((a, b) -> order.compare((Row) a[0], (Row) b[0]));
            List<Row> out = new ArrayList<>();
            long position = 0;
            long to = keep >= 0 ? keep : Long.MAX_VALUE;
            for (Object[] e : entries) {
                long n = (long) e[1];
                for (long i = 0; i < n && position < to; i++, position++) {
                    if (position >= offset) {
                        out.add((Row) e[0]);
                        if (out.size() > maxRows) {
                            throw new PeekFailure(ErrorKind.TOO_LARGE, "result exceeds the maximum result size of " + maxRows + " rows; add a limit or a filter");
                        }
                    }
                }
            }
            return out;
        }
    }
}
