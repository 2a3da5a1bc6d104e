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
 * Offsets are elided when every row of a level has the same length or every group has one member;
 * times are stored once when every update has the same time (a hydrated snapshot, or history
 * compacted to one frontier) and diffs not at all when every diff is 1. So a compacted
 * update with distinct keys costs only its encoded key and value bytes. Because a batch never
 * changes, readers on other threads hold it without locks or copies.
 *
 * <p>A {@link KeyFilter} over the keys, built as the batch is written, lets a point lookup skip a
 * batch that cannot hold its key without searching it; a {@link KeyIndex} of sampled key prefixes, built
 * with the batch, shortens the searches of the key column that remain.
 */
public final class Batch {

    private final Frontier lower;
    private final Frontier upper;
    private final Frontier since;

    final Rows keys;
    final Starts keyValStart;
    final Rows vals;
    final Starts valUpdStart;
    /** Each update's time, or (when {@code constantTime}) one time shared by every update. */
    private final long[] times;
    private final boolean constantTime;
    /** Each update's diff, or null when every diff is 1 (a consolidated snapshot of distinct rows). */
    private final long[] diffs;
    private final int updates;
    private final KeyFilter keyFilter;
    private final KeyIndex keyIndex;

    /**
     * A batch of {@code updates} updates over the given columns. {@code times} holds one entry per update,
     * or one shared by every update; {@code diffs} one per update, or is null when every diff is 1. Both
     * are stored compressed when every time is the same or every diff is 1. {@code keyFilter} must
     * accept every key of {@code keys}.
     */
    Batch(Frontier lower, Frontier upper, Frontier since, Rows keys, Starts keyValStart, Rows vals, Starts valUpdStart,
            int updates, long[] times, long[] diffs, KeyFilter keyFilter) {
        this.lower = lower;
        this.upper = upper;
        this.since = since;
        this.keys = keys;
        this.keyValStart = keyValStart;
        this.vals = vals;
        this.valUpdStart = valUpdStart;
        this.updates = updates;
        this.keyFilter = keyFilter;
        this.keyIndex = new KeyIndex(keys);
        boolean sameTime = updates > 1;
        for (int u = 1; sameTime && u < times.length; u++) {
            sameTime = times[u] == times[0];
        }
        boolean allOnes = updates > 0;
        for (int u = 0; allOnes && diffs != null && u < updates; u++) {
            allOnes = diffs[u] == 1;
        }
        this.constantTime = sameTime;
        this.times = sameTime && times.length > 1 ? new long[] {times[0]} : times;
        this.diffs = allOnes ? null : diffs;
    }

    /** The time of update {@code u}. */
    long time(int u) {
        return constantTime ? times[0] : times[u];
    }

    /** The diff of update {@code u}. */
    long diff(int u) {
        return diffs == null ? 1 : diffs[u];
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
        return updates;
    }

    public int keyCount() {
        return keys.count();
    }

    public boolean isEmpty() {
        return updates == 0;
    }

    /** Heap bytes of the key filter alone (part of {@link #byteSize()}). */
    long keyFilterBytes() {
        return keyFilter.byteSize();
    }

    /** Approximate heap bytes of the packed storage. */
    public long byteSize() {
        return keys.byteSize() + vals.byteSize() + keyValStart.byteSize() + valUpdStart.byteSize() + 8L * times.length + (diffs == null ? 0 : 8L * diffs.length)
                + keyFilter.byteSize() + keyIndex.byteSize() + 64;
    }

    /** A cursor over this batch alone. */
    public Cursor cursor() {
        return new BatchCursor(this);
    }

    /**
     * Whether this batch may hold the key of this {@linkplain Row#hash64() hash}: always true when it
     * does, rarely when it does not (see {@link KeyFilter}).
     */
    boolean mayHoldKey(long keyHash) {
        return keyFilter.mayContain(keyHash);
    }

    /** The index of the first key {@code >= key} (the key count when there is none). */
    int seekKey(Row key) {
        return keyIndex.seek(key);
    }

    /** The index of {@code key}, or {@code -1} when this batch does not hold it. */
    int findKey(Row key) {
        int k = keyIndex.seek(key);
        return k < keys.count() && keys.compare(k, key) == 0 ? k : -1;
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
            if (time(u) <= t) {
                sum += diff(u);
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
