package dev.tandem.render;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;

/**
 * A temporal filter ({@link Plan.TemporalFilter}): each update {@code (row, t, d)} becomes {@code (row, max(t, from), d)}
 * and {@code (row, max(t, until), -d)}, where {@code [from, until)} is the interval of logical times at which the row's
 * bounds hold ({@link #validity}); an empty interval emits nothing. Updates at times the round has not reached are held,
 * per shard in a heap ordered by time, and released in the round whose {@code [lower, upper)} contains their time, so
 * rows leave (and enter) the output as the inputs' frontier passes their times, with no write.
 */
final class TemporalFilterOperator extends Operator {

    private static final long MICROS_PER_MILLI = 1000;

    private final MfpEvaluator bounds;
    private final Plan.TemporalCmp[] cmps;
    private final long[] shifts;
    private final List<Held> held = new ArrayList<>();

    TemporalFilterOperator(Operator input, Plan.TemporalFilter spec, List<DatumType> inputTypes) {
        super("temporal_filter", input);
        int n = inputTypes.size();
        List<Expr> exprs = spec.bounds().stream().map(Plan.TemporalBound::expr).toList();
        List<Integer> project = new ArrayList<>();
        for (int i = 0; i < exprs.size(); i++) {
            project.add(n + i);
        }
        this.bounds = new Mfp(exprs, List.of(), project).bind(inputTypes);
        this.cmps = spec.bounds().stream().map(Plan.TemporalBound::cmp).toArray(Plan.TemporalCmp[]::new);
        this.shifts = spec.bounds().stream().mapToLong(Plan.TemporalBound::shift).toArray();
    }

    /** The earliest time of an update some shard holds (read between rounds), {@link Long#MAX_VALUE} when none. */
    long nextRelease() {
        long min = Long.MAX_VALUE;
        synchronized (held) {
            for (Held h : held) {
                min = Math.min(min, h.next);
            }
        }
        return min;
    }

    @Override
    Shard shard(int w) {
        Held h = new Held();
        synchronized (held) {
            held.add(h);
        }
        long[] interval = new long[2];
        return new Shard() {
            @Override
            public void step(Updates[] in, Round round, Updates out, Updates errs) {
                Updates u = in[0];
                for (int i = 0; i < u.size; i++) {
                    long time = u.times[i];
                    long diff = u.diffs[i];
                    Row row = u.row(i);
                    Row values;
                    try {
                        values = bounds.apply(row);
                    } catch (EvalError e) {
                        errs.add(e.error().row(), time, diff);
                        continue;
                    }
                    if (!validity(values, cmps, shifts, interval)) {
                        continue;
                    }
                    long from = Math.max(time, interval[0]);
                    long until = interval[1];
                    if (from >= until) {
                        continue;
                    }
                    h.emit(row, from, diff, round.upper(), out);
                    if (until != Long.MAX_VALUE) {
                        h.emit(row, until, -diff, round.upper(), out);
                    }
                }
                h.release(round.upper(), out);
            }

            @Override
            public long residentBytes() {
                return h.bytes;
            }
        };
    }

    /**
     * Sets {@code interval} to {@code [from, until)}, the logical times (milliseconds) at which every bound holds for
     * a row whose bound values are {@code values}; false when a value is NULL (the row is never in the output). For a
     * bound {@code t * 1000 + shift  cmp  v}, with {@code w = v - shift} (exact, saturating past the range of a long):
     * {@code <} holds for {@code t < ceil(w / 1000)}, {@code <=} for {@code t < floor(w / 1000) + 1}, {@code >} for
     * {@code t >= floor(w / 1000) + 1}, {@code >=} for {@code t >= ceil(w / 1000)}, and {@code =} for both of the
     * last two. {@link Long#MIN_VALUE} and {@link Long#MAX_VALUE} stand for no bound.
     */
    static boolean validity(Row values, Plan.TemporalCmp[] cmps, long[] shifts, long[] interval) {
        long from = Long.MIN_VALUE;
        long until = Long.MAX_VALUE;
        for (int b = 0; b < cmps.length; b++) {
            Object v = values.get(b);
            if (v == null) {
                return false;
            }
            long micros = v instanceof dev.tandem.row.TimestampTz tz ? tz.micros() : ((dev.tandem.row.Timestamp) v).micros();
            long w = micros - shifts[b];
            // past the range of a long, w is beyond every time: above them when the shift was negative, below when positive
            boolean overflow = ((micros ^ shifts[b]) & (micros ^ w)) < 0;
            boolean above = overflow && shifts[b] < 0;
            boolean below = overflow && shifts[b] > 0;
            long ceil = above ? Long.MAX_VALUE : below ? Long.MIN_VALUE : Math.ceilDiv(w, MICROS_PER_MILLI);
            long floorPlusOne = above ? Long.MAX_VALUE : below ? Long.MIN_VALUE : Math.floorDiv(w, MICROS_PER_MILLI) + 1;
            switch (cmps[b]) {
                case LT -> until = Math.min(until, ceil);
                case LE -> until = Math.min(until, floorPlusOne);
                case GT -> from = Math.max(from, floorPlusOne);
                case GE -> from = Math.max(from, ceil);
                case EQ -> {
                    from = Math.max(from, ceil);
                    until = Math.min(until, floorPlusOne);
                }
            }
        }
        interval[0] = from;
        interval[1] = until;
        return true;
    }

    /**
     * One shard's updates at times not yet reached: the updates in a buffer and a binary min-heap of their indices by
     * time. Released entries leave the heap; the buffer is rewritten with the live ones once most of it is released.
     */
    private static final class Held {

        private Updates updates = new Updates();
        private int[] heap = new int[16];
        private int size;
        /** The earliest held time, {@link Long#MAX_VALUE} when none (read by other threads between rounds). */
        volatile long next = Long.MAX_VALUE;
        /** The heap bytes held (read by other threads). */
        volatile long bytes;

        void emit(Row row, long time, long diff, long upper, Updates out) {
            if (time < upper) {
                out.add(row, time, diff);
                return;
            }
            updates.add(row, time, diff);
            if (size == heap.length) {
                heap = java.util.Arrays.copyOf(heap, 2 * size);
            }
            heap[size] = updates.size - 1;
            up(size++);
        }

        /** Moves every held update of a time before {@code upper} to {@code out}. */
        void release(long upper, Updates out) {
            while (size > 0 && updates.times[heap[0]] < upper) {
                out.add(updates, heap[0], 1);
                heap[0] = heap[--size];
                down(0);
            }
            if (size == 0) {
                if (updates.size > 0) {
                    updates = new Updates();
                }
            } else if (updates.size > 1024 && size < updates.size / 2) {
                Updates live = new Updates();
                for (int i = 0; i < size; i++) {
                    live.add(updates, heap[i], 1);
                    heap[i] = i;
                }
                updates = live;
            }
            next = size == 0 ? Long.MAX_VALUE : updates.times[heap[0]];
            bytes = updates.byteSize() + 4L * heap.length;
        }

        private boolean before(int a, int b) {
            return updates.times[heap[a]] < updates.times[heap[b]];
        }

        private void up(int i) {
            while (i > 0) {
                int parent = (i - 1) / 2;
                if (!before(i, parent)) {
                    return;
                }
                swap(i, parent);
                i = parent;
            }
        }

        private void down(int i) {
            while (true) {
                int l = 2 * i + 1;
                int smallest = i;
                if (l < size && before(l, smallest)) {
                    smallest = l;
                }
                if (l + 1 < size && before(l + 1, smallest)) {
                    smallest = l + 1;
                }
                if (smallest == i) {
                    return;
                }
                swap(i, smallest);
                i = smallest;
            }
        }

        private void swap(int a, int b) {
            int t = heap[a];
            heap[a] = heap[b];
            heap[b] = t;
        }
    }
}
