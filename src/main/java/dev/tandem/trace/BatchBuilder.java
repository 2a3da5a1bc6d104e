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
 * diffs), never as row objects, so building a batch of millions of updates allocates a handful of
 * arrays. Sorting is two-pass: a primitive sort of each update's key {@linkplain Row#orderPrefix()
 * prefix} packed with its index, which orders most updates without comparing rows, then an index sort
 * of each run of updates whose prefixes tie. Capacity beyond a small bound is released after each
 * build, so a builder that once built a huge batch does not keep its buffers.
 */
public final class BatchBuilder {

    private static final int PROGRESS_STEP = 1 << 15;
    private static final int RETAINED = 1 << 12;

    private final Slab keys = new Slab();
    private final Slab vals = new Slab();
    private long[] times = new long[64];
    private long[] diffs = new long[64];
    private int size;
    private LongConsumer progress = n -> { };

    public BatchBuilder add(Row key, Row val, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        keys.add(key);
        vals.add(val);
        push(time, diff);
        return this;
    }

    /** Adds {@code val} keyed by its datums at {@code keyColumns}, copying bytes without a key row. */
    public BatchBuilder addKeyedBy(int[] keyColumns, Row val, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        keys.addProjection(val, keyColumns);
        vals.add(val);
        push(time, diff);
        return this;
    }

    /** As {@link #addKeyedBy(int[], Row, long, long)}, for the encoded row at {@code src[from, to)}. */
    public BatchBuilder addKeyedBy(int[] keyColumns, byte[] src, int from, int to, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        keys.addProjection(src, from, to, keyColumns);
        vals.add(src, from, to);
        push(time, diff);
        return this;
    }

    /**
     * Makes room for {@code updates} more updates whose values take {@code valBytes} (and keys at most
     * as much), so that adding a known number of updates grows no array by doubling.
     */
    public BatchBuilder reserve(int updates, long valBytes) {
        vals.reserve(valBytes, updates);
        keys.reserve(0, updates);
        if (size + updates > times.length) {
            times = Arrays.copyOf(times, size + updates);
            diffs = Arrays.copyOf(diffs, size + updates);
        }
        return this;
    }

    private void push(long time, long diff) {
        if (size == times.length) {
            times = Arrays.copyOf(times, size * 2);
            diffs = Arrays.copyOf(diffs, size * 2);
        }
        times[size] = time;
        diffs[size] = diff;
        size++;
    }

    public int size() {
        return size;
    }

    /** Heap bytes held by the pending updates. */
    public long byteSize() {
        return keys.byteSize() + vals.byteSize() + 16L * times.length;
    }

    /** Reports consolidation progress of every later {@link #build} to {@code progress}. */
    public BatchBuilder onProgress(LongConsumer progress) {
        this.progress = progress;
        return this;
    }

    /** Builds the batch {@code [lower, upper)}; every added time must lie in it. The builder is then empty. */
    public Batch build(Frontier lower, Frontier upper, Frontier since) {
        long sinceTime = since.isEmpty() ? Long.MAX_VALUE : since.time();
        for (int i = 0; i < size; i++) {
            long t = times[i];
            if (!lower.lessEqual(t) || !upper.isPast(t)) {
                clear();
                throw new IllegalArgumentException("update at " + t + " outside batch [" + lower + ", " + upper + ")");
            }
            if (t < sinceTime) {
                times[i] = sinceTime;
            }
        }
        int[] order = sortedOrder();
        BatchWriter w = new BatchWriter(keys.length, size, vals.length, size, size, false);
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
                boolean newVal = newKey || vals.compare(last, u) != 0;
                w.push(keys.bytes, keys.start(u), keys.ends[u], newKey, vals.bytes, vals.start(u), vals.ends[u], newVal,
                        times[u], sum);
                last = u;
            }
            i = j;
        }
        progress.accept(size - reported);
        Batch batch = w.finish(lower, upper, since);
        clear();
        return batch;
    }

    private void clear() {
        size = 0;
        keys.clear();
        vals.clear();
        if (times.length > RETAINED) {
            times = new long[RETAINED];
            diffs = new long[RETAINED];
        }
    }

    private boolean sameUpdate(int a, int b) {
        return times[a] == times[b] && keys.compare(a, b) == 0 && vals.compare(a, b) == 0;
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
            packed[i] = ((Row.orderPrefix(keys.bytes, keys.start(i), keys.ends[i]) ^ Long.MIN_VALUE) & ~indexMask) | i;
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
            c = vals.compare(a, b);
        }
        return c != 0 ? c : Long.compare(times[a], times[b]);
    }

    /** Encoded rows back to back with end offsets. */
    private static final class Slab {
        byte[] bytes = new byte[256];
        int[] ends = new int[64];
        int count;
        int length;

        int start(int i) {
            return i == 0 ? 0 : ends[i - 1];
        }

        void add(Row row) {
            reserve(row.byteSize());
            row.copyTo(bytes, length);
            end(length + row.byteSize());
        }

        void addProjection(Row row, int[] columns) {
            reserve((long) row.byteSize() * Math.max(1, columns.length));
            end(row.projectInto(columns, bytes, length));
        }

        void add(byte[] src, int from, int to) {
            reserve(to - from);
            System.arraycopy(src, from, bytes, length, to - from);
            end(length + to - from);
        }

        void addProjection(byte[] src, int from, int to, int[] columns) {
            reserve((long) (to - from) * Math.max(1, columns.length));
            end(Row.projectInto(src, from, to, columns, bytes, length));
        }

        private void end(int newLength) {
            length = newLength;
            ends[count++] = length;
        }

        /** Room for {@code n} more bytes in {@code count} more rows. */
        void reserve(long n, int rows) {
            reserve(n);
            if (count + rows > ends.length) {
                ends = Arrays.copyOf(ends, count + rows);
            }
        }

        private void reserve(long n) {
            if (length + n > bytes.length) {
                long want = Math.max(2L * bytes.length, length + n);
                if (want > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("a batch cannot hold more than 2 GB of rows in one column");
                }
                bytes = Arrays.copyOf(bytes, (int) want);
            }
            if (count == ends.length) {
                ends = Arrays.copyOf(ends, Math.max(16, count * 2));
            }
        }

        int compare(int a, int b) {
            return Row.compare(bytes, start(a), ends[a], bytes, start(b), ends[b]);
        }

        long byteSize() {
            return bytes.length + 4L * ends.length;
        }

        void clear() {
            count = 0;
            length = 0;
            if (bytes.length > RETAINED * 32) {
                bytes = new byte[RETAINED * 32];
            }
            if (ends.length > RETAINED) {
                ends = new int[RETAINED];
            }
        }
    }
}
