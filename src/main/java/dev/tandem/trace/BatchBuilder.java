package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * Collects updates in any order and builds a sorted, consolidated {@link Batch}: updates with equal
 * {@code (key, val, time)} are summed and zero sums dropped. Times before {@code since} are advanced to
 * it when the batch is built.
 *
 * <p>Pending updates are held as primitive columns (key bytes, value bytes, end offsets, times,
 * diffs), never as row objects. Sorting is two-pass: a primitive sort of each update's key
 * {@linkplain Row#orderPrefix() prefix} packed with its index, which orders most updates without
 * comparing rows, then an index sort of each run of updates whose prefixes tie.
 *
 * <p><b>Memory.</b> The columns and the sort's arrays are a {@link BuilderScratch} that the builder takes
 * from a {@link ScratchPool} when it starts collecting and gives back once it has built, so building
 * batch after batch (a hydration's snapshot, round after round) reuses arrays instead of allocating
 * them; the pool keeps a bounded number of bytes across all builders, so a builder that once built a
 * huge batch does not keep its buffers. An empty builder holds no scratch.
 *
 * <p><b>Borrowed rows.</b> {@link #addAllKeyedBy} on an empty builder does not copy the rows: the builder
 * reads the caller's columns until it builds, writing only the projected keys into its scratch.
 */
public final class BatchBuilder {

    private static final int PROGRESS_STEP = 1 << 15;

    private final ScratchPool pool;
    /** The pending updates' columns and the sort's arrays; null while the builder is empty. */
    private BuilderScratch scratch;
    /** Pending entries: the scratch's own rows, or the borrowed columns' first {@code count} rows. */
    private int count;
    /** Entries with a non-zero diff (every own entry has one). */
    private int live;
    /** Bytes of the keys and values of the live entries. */
    private long liveKeyBytes;
    private long liveValBytes;
    /** The borrowed columns (see {@link #addAllKeyedBy}), or null when the rows are the scratch's own. */
    private byte[] srcRows;
    private int[] srcEnds;
    private long[] srcTimes;
    private long[] srcDiffs;
    private int[] srcKey;
    private LongConsumer progress = n -> { };

    /** The columns {@link #build} reads (the scratch's or the borrowed ones) and its {@code since}. */
    private byte[] valBytes;
    private int[] valEnds;
    private long[] times;
    private long[] diffs;
    private BuilderScratch.Slab keys;
    private long sinceTime;

    public BatchBuilder() {
        this(ScratchPool.SHARED);
    }

    /** A builder whose scratch comes from and returns to {@code pool}. */
    BatchBuilder(ScratchPool pool) {
        this.pool = pool;
    }

    public BatchBuilder add(Row key, Row val, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        BuilderScratch s = own();
        s.keys.add(key);
        s.vals.add(val);
        push(s, time, diff);
        return this;
    }

    /** Adds {@code val} keyed by its datums at {@code keyColumns}, copying bytes without a key row. */
    public BatchBuilder addKeyedBy(int[] keyColumns, Row val, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        BuilderScratch s = own();
        s.keys.addProjection(val, keyColumns);
        s.vals.add(val);
        push(s, time, diff);
        return this;
    }

    /** As {@link #addKeyedBy(int[], Row, long, long)}, for the encoded row at {@code src[from, to)}. */
    public BatchBuilder addKeyedBy(int[] keyColumns, byte[] src, int from, int to, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        BuilderScratch s = own();
        s.keys.addProjection(src, from, to, keyColumns);
        s.vals.add(src, from, to);
        push(s, time, diff);
        return this;
    }

    /**
     * Adds the first {@code n} updates of the given columns, keyed by their datums at {@code keyColumns}:
     * update {@code i} is the encoded row at {@code rows[ends[i - 1], ends[i])} (from 0 for the first) at
     * {@code times[i]} with {@code diffs[i]}, skipped when that is zero; {@code progress} is told of every
     * {@value #PROGRESS_STEP} updates added. On an empty builder the rows are borrowed, not copied: the
     * builder reads the four arrays until the next {@link #build}, so they must not change until then.
     * Otherwise they are copied as {@link #addKeyedBy(int[], byte[], int, int, long, long)} does.
     */
    public BatchBuilder addAllKeyedBy(int[] keyColumns, byte[] rows, int[] ends, long[] times, long[] diffs, int n,
            LongConsumer progress) {
        if (n == 0) {
            return this;
        }
        if (count != 0) {
            reserve(n, ends[n - 1]);
            for (int from = 0; from < n; from += PROGRESS_STEP) {
                int to = Math.min(n, from + PROGRESS_STEP);
                for (int i = from; i < to; i++) {
                    addKeyedBy(keyColumns, rows, i == 0 ? 0 : ends[i - 1], ends[i], times[i], diffs[i]);
                }
                progress.accept(to - from);
            }
            return this;
        }
        BuilderScratch s = scratch(n);
        BuilderScratch.Slab k = s.keys;
        k.reserve(0, n);
        srcRows = rows;
        srcEnds = ends;
        srcTimes = times;
        srcDiffs = diffs;
        srcKey = keyColumns;
        count = n;
        for (int from = 0; from < n; from += PROGRESS_STEP) {
            int to = Math.min(n, from + PROGRESS_STEP);
            for (int i = from; i < to; i++) {
                int start = i == 0 ? 0 : ends[i - 1];
                // every row's key is projected, so that key i is row i's
                k.addProjection(rows, start, ends[i], keyColumns);
                if (diffs[i] != 0) {
                    live++;
                    liveKeyBytes += k.ends[i] - k.start(i);
                    liveValBytes += ends[i] - start;
                }
            }
            progress.accept(to - from);
        }
        return this;
    }

    /**
     * Makes room for {@code updates} more updates whose values take {@code valBytes} (and keys at most
     * as much), so that adding a known number of updates grows no array by doubling.
     */
    public BatchBuilder reserve(int updates, long valBytes) {
        BuilderScratch s = own(updates);
        s.vals.reserve(valBytes, updates);
        s.keys.reserve(0, updates);
        s.reserveUpdates(count + updates);
        return this;
    }

    /** The scratch, taken from the pool for about {@code updates} updates if none is held. */
    private BuilderScratch scratch(int updates) {
        if (scratch == null) {
            scratch = pool.take(updates);
        }
        return scratch;
    }

    /** The scratch, with any borrowed rows first copied into it, so that more can be added. */
    private BuilderScratch own() {
        return own(0);
    }

    /** As {@link #own()}, taking a scratch for about {@code updates} more updates if none is held. */
    private BuilderScratch own(int updates) {
        BuilderScratch s = scratch(updates);
        if (srcRows != null) {
            byte[] rows = srcRows;
            int[] ends = srcEnds;
            long[] t = srcTimes;
            long[] d = srcDiffs;
            int[] key = srcKey;
            int n = count;
            dropBorrowed();
            s.keys.clear();
            s.vals.reserve(ends[n - 1], n);
            s.keys.reserve(0, n);
            s.reserveUpdates(n);
            for (int i = 0; i < n; i++) {
                addKeyedBy(key, rows, i == 0 ? 0 : ends[i - 1], ends[i], t[i], d[i]);
            }
        }
        return s;
    }

    private void dropBorrowed() {
        srcRows = null;
        srcEnds = null;
        srcTimes = null;
        srcDiffs = null;
        srcKey = null;
        count = 0;
        live = 0;
        liveKeyBytes = 0;
        liveValBytes = 0;
    }

    private void push(BuilderScratch s, long time, long diff) {
        if (count == s.times.length) {
            s.reserveUpdates(count * 2);
        }
        s.times[count] = time;
        s.diffs[count] = diff;
        liveKeyBytes += s.keys.ends[count] - s.keys.start(count);
        liveValBytes += s.vals.ends[count] - s.vals.start(count);
        count++;
        live++;
    }

    /** The number of pending updates (those with a non-zero diff). */
    public int size() {
        return live;
    }

    /** Heap bytes held by the pending updates: the scratch's arrays (borrowed rows are the caller's). */
    public long byteSize() {
        return scratch == null ? 0 : scratch.byteSize();
    }

    /** Reports consolidation progress of every later {@link #build} to {@code progress}. */
    public BatchBuilder onProgress(LongConsumer progress) {
        this.progress = progress;
        return this;
    }

    /**
     * Builds the batch {@code [lower, upper)}; every added time must lie in it. The builder is then empty
     * and its scratch back in the pool (borrowed rows are let go of even when this throws).
     */
    public Batch build(Frontier lower, Frontier upper, Frontier since) {
        if (scratch == null) {
            progress.accept(0);
            return new BatchWriter(0, 0, 0, 0, 0, false).finish(lower, upper, since);
        }
        BuilderScratch s = scratch;
        keys = s.keys;
        if (srcRows != null) {
            valBytes = srcRows;
            valEnds = srcEnds;
            times = srcTimes;
            diffs = srcDiffs;
        } else {
            valBytes = s.vals.bytes;
            valEnds = s.vals.ends;
            times = s.times;
            diffs = s.diffs;
        }
        boolean borrowed = srcRows != null;
        boolean built = false;
        try {
            Batch batch = write(s, lower, upper, since);
            built = true;
            return batch;
        } finally {
            valBytes = null;
            valEnds = null;
            times = null;
            diffs = null;
            keys = null;
            if (built || borrowed) {
                clear();
            }
        }
    }

    private Batch write(BuilderScratch s, Frontier lower, Frontier upper, Frontier since) {
        sinceTime = since.isEmpty() ? Long.MAX_VALUE : since.time();
        for (int i = 0; i < count; i++) {
            long t = times[i];
            if (diffs[i] != 0 && (!lower.lessEqual(t) || !upper.isPast(t))) {
                clear();
                throw new IllegalArgumentException("update at " + t + " outside batch [" + lower + ", " + upper + ")");
            }
        }
        int size = live;
        int[] order = sortedOrder(s);
        BatchWriter w = new BatchWriter(liveKeyBytes, size, liveValBytes, size, size, false);
        int i = 0;
        int reported = 0;
        int last = -1;
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
                boolean newKey = last < 0 || keys.compare(last, u) != 0;
                boolean newVal = newKey || compareVals(last, u) != 0;
                w.push(keys.bytes, keys.start(u), keys.ends[u], newKey, valBytes, valStart(u), valEnds[u], newVal,
                        time(u), sum);
                last = u;
            }
            i = j;
        }
        progress.accept(size - reported);
        return w.finish(lower, upper, since);
    }

    /** Empties the builder and gives its scratch back to the pool. */
    private void clear() {
        dropBorrowed();
        if (scratch != null) {
            BuilderScratch s = scratch;
            scratch = null;
            pool.give(s);
        }
    }

    /** Update {@code u}'s time, advanced to {@code since}. */
    private long time(int u) {
        return Math.max(times[u], sinceTime);
    }

    private int valStart(int u) {
        return u == 0 ? 0 : valEnds[u - 1];
    }

    private int compareVals(int a, int b) {
        return Row.compare(valBytes, valStart(a), valEnds[a], valBytes, valStart(b), valEnds[b]);
    }

    private boolean sameUpdate(int a, int b) {
        return time(a) == time(b) && keys.compare(a, b) == 0 && compareVals(a, b) == 0;
    }

    /** The indices of the live pending updates in {@code (key, val, time)} order, in the first {@link #live} of the array. */
    private int[] sortedOrder(BuilderScratch s) {
        int size = live;
        s.reserveSort(size);
        int[] order = s.order;
        if (size == 0) {
            return order;
        }
        int indexBits = Math.max(1, 64 - Long.numberOfLeadingZeros(count - 1));
        long indexMask = (1L << indexBits) - 1;
        long[] packed = s.packed;
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (diffs[i] != 0) {
                // flip the sign bit so that the signed sort orders prefixes as unsigned
                packed[n++] = ((Row.orderPrefix(keys.bytes, keys.start(i), keys.ends[i]) ^ Long.MIN_VALUE) & ~indexMask) | i;
            }
        }
        Arrays.sort(packed, 0, size);
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

    /**
     * Sorts {@code order[from, to)} by comparing the updates in full: nothing to do when the run is
     * already in order (rows added in key order, as a table loaded in order arrives), else quicksort,
     * with insertion sort for short runs.
     */
    private void sortRun(int[] order, int from, int to) {
        if (inOrder(order, from, to)) {
            return;
        }
        while (to - from > 16) {
            int mid = (from + to) >>> 1;
            int pivot = medianOfThree(order[from], order[mid], order[to - 1]);
            int lt = from;
            int gt = to;
            int i = from;
            // three-way partition: [from, lt) < pivot, [lt, i) == pivot, [gt, to) > pivot
            while (i < gt) {
                int c = compare(order[i], pivot);
                if (c < 0) {
                    swap(order, lt++, i++);
                } else if (c > 0) {
                    swap(order, i, --gt);
                } else {
                    i++;
                }
            }
            // recurse into the smaller side, loop on the larger
            if (lt - from < to - gt) {
                sortRun(order, from, lt);
                from = gt;
            } else {
                sortRun(order, gt, to);
                to = lt;
            }
        }
        for (int i = from + 1; i < to; i++) {
            int u = order[i];
            int j = i - 1;
            while (j >= from && compare(order[j], u) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = u;
        }
    }

    private boolean inOrder(int[] order, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (compare(order[i - 1], order[i]) > 0) {
                return false;
            }
        }
        return true;
    }

    private int medianOfThree(int a, int b, int c) {
        if (compare(a, b) > 0) {
            int t = a;
            a = b;
            b = t;
        }
        if (compare(b, c) > 0) {
            b = c;
            if (compare(a, b) > 0) {
                b = a;
            }
        }
        return b;
    }

    private static void swap(int[] a, int i, int j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    private int compare(int a, int b) {
        int c = keys.compare(a, b);
        if (c == 0) {
            c = compareVals(a, b);
        }
        return c != 0 ? c : Long.compare(time(a), time(b));
    }
}
