package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;

/**
 * An immutable run of updates {@code (key, val, time, diff)} sorted by key, val and time, with its
 * description {@code (lower, upper, since)}: it holds every update of its trace with
 * {@code lower <= time < upper}, times before {@code since} possibly advanced to {@code since}.
 *
 * <p>Storage is columnar and packed: distinct keys, then for each key its distinct values, then for
 * each value its {@code (time, diff)} pairs, each level as one byte or long array with start offsets.
 * Offsets are elided when every row of a level has the same length or every group has one member,
 * so an {@code (int64, int64)} update costs 34 bytes when keys are distinct. Because a batch never
 * changes, readers on other threads hold it without locks or copies.
 */
public final class Batch {

    private final Frontier lower;
    private final Frontier upper;
    private final Frontier since;

    final Rows keys;
    final Starts keyValStart;
    final Rows vals;
    final Starts valUpdStart;
    final long[] times;
    final long[] diffs;
    /**
     * A static search tree over the keys' {@link Row#orderPrefix() prefixes}: level 0 holds the prefix
     * of every {@link #FENCE_STRIDE}-th key, each further level every {@code FENCE_STRIDE}-th entry of
     * the one below, up to a level of at most {@code FENCE_STRIDE} entries. A point lookup descends it
     * reading a few adjacent cache lines per level instead of one random line per binary-search step;
     * {@code null} for small batches. It costs about half a byte per key.
     */
    private final long[][] fence;

    static final int FENCE_STRIDE = 16;
    private static final int FENCE_MIN_KEYS = 1024;

    Batch(Frontier lower, Frontier upper, Frontier since, Rows keys, Starts keyValStart, Rows vals, Starts valUpdStart,
            long[] times, long[] diffs) {
        this.lower = lower;
        this.upper = upper;
        this.since = since;
        this.keys = keys;
        this.keyValStart = keyValStart;
        this.vals = vals;
        this.valUpdStart = valUpdStart;
        this.times = times;
        this.diffs = diffs;
        this.fence = keys.count() < FENCE_MIN_KEYS ? null : fenceOf(keys);
    }

    private static long[][] fenceOf(Rows keys) {
        java.util.List<long[]> levels = new java.util.ArrayList<>();
        long[] level = new long[(keys.count() + FENCE_STRIDE - 1) / FENCE_STRIDE];
        for (int j = 0; j < level.length; j++) {
            int k = j * FENCE_STRIDE;
            level[j] = Row.orderPrefix(keys.bytes, keys.start(k), keys.end(k));
        }
        levels.add(level);
        while (level.length > FENCE_STRIDE) {
            long[] up = new long[(level.length + FENCE_STRIDE - 1) / FENCE_STRIDE];
            for (int j = 0; j < up.length; j++) {
                up[j] = level[j * FENCE_STRIDE];
            }
            levels.add(up);
            level = up;
        }
        return levels.toArray(new long[0][]);
    }

    /** An empty batch that only advances time from {@code lower} to {@code upper}. */
    public static Batch empty(Frontier lower, Frontier upper, Frontier since) {
        return new BatchWriter().finish(lower, upper, since);
    }

    public Frontier lower() {
        return lower;
    }

    public Frontier upper() {
        return upper;
    }

    public Frontier since() {
        return since;
    }

    /** The number of {@code (key, val, time, diff)} updates. */
    public int updateCount() {
        return times.length;
    }

    public int keyCount() {
        return keys.count();
    }

    public boolean isEmpty() {
        return times.length == 0;
    }

    /** Approximate heap bytes of the packed storage. */
    public long byteSize() {
        return keys.byteSize() + vals.byteSize() + keyValStart.byteSize() + valUpdStart.byteSize() + 16L * times.length
                + fenceBytes() + 64;
    }

    /** A cursor over this batch alone. */
    public Cursor cursor() {
        return new BatchCursor(this);
    }

    /** The index of the first key {@code >= key} at or after {@code from}. */
    int seekKey(Row key, int from) {
        int lo = from;
        int hi = keys.count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (keys.compare(mid, key) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private long fenceBytes() {
        long n = 0;
        if (fence != null) {
            for (long[] level : fence) {
                n += 8L * level.length + 16;
            }
        }
        return n;
    }

    /** The index of {@code key}, or {@code -1} when this batch does not hold it. */
    int findKey(Row key) {
        int lo = 0;
        int hi = keys.count();
        if (fence != null) {
            long p = key.orderPrefix();
            // keys before block ge-1 are smaller than key; the key where block gt starts is larger
            lo = Math.max(0, (descend(p, false) - 1) * FENCE_STRIDE);
            hi = Math.min(hi, descend(p, true) * FENCE_STRIDE);
        }
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = keys.compare(mid, key);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /**
     * The index in fence level 0 of the first entry {@code >= p} ({@code > p} when {@code strict}),
     * found level by level from the top: if it is {@code g} on one level, it lies in
     * {@code ((g-1)*STRIDE, g*STRIDE]} on the level below.
     */
    private int descend(long p, boolean strict) {
        int top = fence.length - 1;
        int g = firstFrom(fence[top], 0, fence[top].length, p, strict);
        for (int level = top - 1; level >= 0; level--) {
            long[] entries = fence[level];
            int from = Math.max(0, (g - 1) * FENCE_STRIDE + 1);
            int to = Math.min(entries.length, g * FENCE_STRIDE);
            g = firstFrom(entries, from, to, p, strict);
        }
        return g;
    }

    /** The first index in {@code [from, to)} whose entry is {@code >= p} ({@code > p} if strict), else {@code to}. */
    private static int firstFrom(long[] entries, int from, int to, long p, boolean strict) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(entries[mid], p);
            if (c < 0 || (strict && c == 0)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * Calls {@code out} for each value of key {@code k} with the sum of its diffs at times {@code <= t},
     * in value order, skipping zero sums.
     */
    void accumulate(int k, long t, Cursor.ValDiff out) {
        for (int v = keyValStart.at(k), end = keyValStart.at(k + 1); v < end; v++) {
            long d = diffAt(v, t);
            if (d != 0) {
                out.accept(vals.row(v), d);
            }
        }
    }

    /** Sum of the diffs of value {@code v} at times {@code <= t}. */
    long diffAt(int v, long t) {
        long sum = 0;
        for (int u = valUpdStart.at(v), end = valUpdStart.at(v + 1); u < end; u++) {
            if (times[u] <= t) {
                sum += diffs[u];
            }
        }
        return sum;
    }

    @Override
    public String toString() {
        return "Batch[" + lower + ", " + upper + ") since " + since + ", " + updateCount() + " updates";
    }

    /** Packed variable-length rows: one byte array with start offsets, or a fixed stride. */
    static final class Rows {
        final byte[] bytes;
        final int[] offsets;
        final int stride;
        final int count;

        Rows(byte[] bytes, int[] offsets, int stride, int count) {
            this.bytes = bytes;
            this.offsets = offsets;
            this.stride = stride;
            this.count = count;
        }

        int count() {
            return count;
        }

        int start(int i) {
            return offsets == null ? i * stride : offsets[i];
        }

        int end(int i) {
            return offsets == null ? (i + 1) * stride : offsets[i + 1];
        }

        Row row(int i) {
            int s = start(i);
            return Row.wrap(bytes, s, end(i) - s);
        }

        /** Compares row {@code i} with {@code other}. */
        int compare(int i, Row other) {
            return -other.compareTo(bytes, start(i), end(i));
        }

        /** Compares row {@code i} with row {@code j} of {@code other}. */
        int compare(int i, Rows other, int j) {
            return Row.compare(bytes, start(i), end(i), other.bytes, other.start(j), other.end(j));
        }

        long byteSize() {
            return bytes.length + (offsets == null ? 0 : 4L * offsets.length) + 32;
        }
    }

    /** Group start offsets into the next level; the identity when every group has one member. */
    static final class Starts {
        final int[] starts;

        Starts(int[] starts) {
            this.starts = starts;
        }

        int at(int i) {
            return starts == null ? i : starts[i];
        }

        long byteSize() {
            return starts == null ? 0 : 4L * starts.length;
        }
    }
}
