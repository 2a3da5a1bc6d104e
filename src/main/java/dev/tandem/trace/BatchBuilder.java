package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.Arrays;

/**
 * Collects updates in any order and builds a sorted, consolidated {@link Batch}: updates with equal
 * {@code (key, val, time)} are summed and zero sums dropped. Times before {@code since} are advanced to
 * it when the batch is built.
 *
 * <p>Sorting is two-pass: a primitive sort of each update's key {@linkplain Row#orderPrefix() prefix}
 * packed with its index, which orders most updates without touching a row, then a comparison sort of
 * each run of updates whose prefixes tie.
 */
public final class BatchBuilder {

    private static final int PROGRESS_STEP = 1 << 15;

    private Row[] keys = new Row[64];
    private Row[] vals = new Row[64];
    private long[] times = new long[64];
    private long[] diffs = new long[64];
    private int size;
    private long keyBytes;
    private long valBytes;

    public BatchBuilder add(Row key, Row val, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        if (size == keys.length) {
            int n = size * 2;
            keys = Arrays.copyOf(keys, n);
            vals = Arrays.copyOf(vals, n);
            times = Arrays.copyOf(times, n);
            diffs = Arrays.copyOf(diffs, n);
        }
        keys[size] = key;
        vals[size] = val;
        times[size] = time;
        diffs[size] = diff;
        size++;
        keyBytes += key.byteSize();
        valBytes += val.byteSize();
        return this;
    }

    public int size() {
        return size;
    }

    /** Progress of a long {@link #build}: told the number of updates consolidated, in steps. */
    private java.util.function.LongConsumer progress = n -> { };

    /** Reports consolidation progress of every later {@link #build} to {@code progress}. */
    public BatchBuilder onProgress(java.util.function.LongConsumer progress) {
        this.progress = progress;
        return this;
    }

    /** Builds the batch {@code [lower, upper)}; every added time must lie in it. The builder is then empty. */
    public Batch build(Frontier lower, Frontier upper, Frontier since) {
        long sinceTime = since.isEmpty() ? Long.MAX_VALUE : since.time();
        for (int i = 0; i < size; i++) {
            long t = times[i];
            if (!lower.lessEqual(t) || !upper.isPast(t)) {
                throw new IllegalArgumentException("update at " + t + " outside batch [" + lower + ", " + upper + ")");
            }
            if (t < sinceTime) {
                times[i] = sinceTime;
            }
        }
        int[] order = sortedOrder();
        BatchWriter w = new BatchWriter(keyBytes, size, valBytes, size, size);
        int i = 0;
        int reported = 0;
        while (i < size) {
            if (i - reported >= PROGRESS_STEP) {
                progress.accept(i - reported);
                reported = i;
            }
            int u = order[i];
            long sum = diffs[u];
            int j = i + 1;
            while (j < size && sameUpdate(order[j], u)) {
                sum += diffs[order[j]];
                j++;
            }
            if (sum != 0) {
                w.push(keys[u], vals[u], times[u], sum);
            }
            i = j;
        }
        progress.accept(size - reported);
        Arrays.fill(keys, 0, size, null);
        Arrays.fill(vals, 0, size, null);
        size = 0;
        keyBytes = 0;
        valBytes = 0;
        return w.finish(lower, upper, since);
    }

    private boolean sameUpdate(int a, int b) {
        return times[a] == times[b] && keys[a].equals(keys[b]) && vals[a].equals(vals[b]);
    }

    /** The indices of the pending updates in {@code (key, val, time)} order. */
    private int[] sortedOrder() {
        int[] order = new int[size];
        if (size == 0) {
            return order;
        }
        int indexBits = Math.max(1, 64 - Long.numberOfLeadingZeros(size - 1));
        long indexMask = (1L << indexBits) - 1;
        long[] packed = new long[size];
        for (int i = 0; i < size; i++) {
            // flip the sign bit so that the signed sort orders prefixes as unsigned
            packed[i] = ((keys[i].orderPrefix() ^ Long.MIN_VALUE) & ~indexMask) | i;
        }
        Arrays.sort(packed);
        for (int i = 0; i < size; i++) {
            order[i] = (int) (packed[i] & indexMask);
        }
        int start = 0;
        for (int i = 1; i <= size; i++) {
            if (i == size || (packed[i] & ~indexMask) != (packed[start] & ~indexMask)) {
                if (i - start > 1) {
                    sortRun(order, start, i);
                }
                start = i;
            }
        }
        return order;
    }

    /** Sorts {@code order[from, to)} by comparing the updates in full. */
    private void sortRun(int[] order, int from, int to) {
        if (to - from <= 16) {
            for (int i = from + 1; i < to; i++) {
                int u = order[i];
                int j = i - 1;
                while (j >= from && compare(order[j], u) > 0) {
                    order[j + 1] = order[j];
                    j--;
                }
                order[j + 1] = u;
            }
            return;
        }
        Integer[] run = new Integer[to - from];
        for (int i = from; i < to; i++) {
            run[i - from] = order[i];
        }
        Arrays.sort(run, this::compare);
        for (int i = from; i < to; i++) {
            order[i] = run[i - from];
        }
    }

    private int compare(int a, int b) {
        int c = keys[a].compareTo(keys[b]);
        if (c == 0) {
            c = vals[a].compareTo(vals[b]);
        }
        return c != 0 ? c : Long.compare(times[a], times[b]);
    }
}
