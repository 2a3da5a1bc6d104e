package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * An immutable run of updates {@code (key, val, time, diff)} sorted by key, val and time, with its
 * description {@code (lower, upper, since)}: it holds every update of its trace with
 * {@code lower <= time < upper}, times before {@code since} possibly advanced to {@code since}.
 *
 * <p>Storage is columnar and packed: distinct keys, then for each key its distinct values, then for
 * each value its {@code (time, diff)} pairs, each level as one byte or long array with where each row or
 * group starts. Group starts are elided when every group has one member, row starts when every row of a
 * level has the same length; rows of at most 255 bytes store a one-byte length each instead, and the start
 * of every 16th (see {@link Rows}). Times are stored once when every update has the same time (a hydrated
 * snapshot, or history compacted to one frontier) and diffs not at all when every diff is 1. So a compacted
 * update with distinct keys costs only its encoded key and value bytes (and 1.25 bytes a row for the
 * lengths of each), or its value bytes alone (and their lengths) when its key leads its value (below).
 * Because a batch never changes, readers on other threads hold it without locks or copies.
 *
 * <p>Keys are stored in one of two layouts, chosen by the {@link BatchWriter} when the batch is written.
 * When every key is the leading datums of its first value, as when an index's key columns lead the row
 * (a table {@code (id, g, v)} indexed by {@code id}), the batch keeps no key bytes, lengths or offsets: the
 * key column is a {@linkplain Rows#prefixes view of the value column}, key {@code k} starting where its
 * first value does and ending after the key's number of datums, which is the same for every key. Otherwise
 * keys have their own packed column. Readers see the same rows either way, as views of the batch's arrays.
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

    /**
     * Packed variable-length rows, each starting where the one before it ends, in one of four layouts:
     * <ul>
     *   <li><b>stride</b>: every row has the same length, so none is stored;
     *   <li><b>lengths</b>: every row is at most {@value #MAX_SHORT_LENGTH} bytes long, so each one's length
     *       takes one byte, and every {@value #BLOCK}th row's start an {@code int}: 1.25 bytes a row against
     *       the 4 of offsets. Row {@code i} starts at its block's start plus the lengths of the rows before
     *       it in the block, summed eight at a time in {@code long}s;
     *   <li><b>offsets</b>: otherwise (rows of several lengths, some longer), the start of every row and the
     *       end of the last, as {@code int}s;
     *   <li><b>prefixes</b>: for a batch's keys in the shared layout, a view of its values (see
     *       {@link #prefixes}).
     * </ul>
     * Rows never change once built, so threads share them without locks; they cache nothing.
     */
    static final class Rows {
        /**
         * Rows per block of the lengths layout, {@code 1 << BLOCK_SHIFT}: each block's start is stored. Its
         * lengths are two {@code long}s (see {@link #startInBlocks}).
         */
        static final int BLOCK_SHIFT = 4;
        static final int BLOCK = 1 << BLOCK_SHIFT;
        /** The longest row the lengths layout can hold. */
        static final int MAX_SHORT_LENGTH = 255;
        private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
                ByteOrder.LITTLE_ENDIAN);
        private static final long EVEN_BYTES = 0x00FF00FF00FF00FFL;
        private static final int ARRAY_HEADER = 16;

        /** The rows' bytes: their own, or those of the {@link #values} they are prefixes of. */
        final byte[] bytes;
        private final int[] offsets;
        /**
         * In the lengths layout, each row's length as an unsigned byte, padded with zeros to whole blocks,
         * and the start of each block's first row; else null.
         */
        private final byte[] lengths;
        private final int[] blockStarts;
        private final int stride;
        private final int count;
        /** Bytes of all the rows together. */
        private final long rowBytes;
        /** For prefix rows, the rows they begin, and the index of each one's row in them; else null. */
        private final Rows values;
        private final Starts firstValue;
        /** For prefix rows, the number of datums of each. */
        private final int arity;

        private Rows(byte[] bytes, int[] offsets, byte[] lengths, int[] blockStarts, int stride, int count,
                long rowBytes, Rows values, Starts firstValue, int arity) {
            this.bytes = bytes;
            this.offsets = offsets;
            this.lengths = lengths;
            this.blockStarts = blockStarts;
            this.stride = stride;
            this.count = count;
            this.rowBytes = rowBytes;
            this.values = values;
            this.firstValue = firstValue;
            this.arity = arity;
        }

        /** {@code count} rows of {@code stride} bytes each. */
        static Rows strided(byte[] bytes, int stride, int count) {
            return new Rows(bytes, null, null, null, stride, count, bytes.length, null, null, 0);
        }

        /** {@code count} rows starting at {@code offsets[i]}, the last ending at {@code offsets[count]}. */
        static Rows withOffsets(byte[] bytes, int[] offsets, int count) {
            return new Rows(bytes, offsets, null, null, 0, count, bytes.length, null, null, 0);
        }

        /**
         * {@code count} rows whose lengths are {@code lengths} (unsigned, padded with zeros to a multiple of
         * {@link #BLOCK}), row {@code b * BLOCK} starting at {@code blockStarts[b]}.
         */
        static Rows withLengths(byte[] bytes, byte[] lengths, int[] blockStarts, int count) {
            return new Rows(bytes, null, lengths, blockStarts, 0, count, bytes.length, null, null, 0);
        }

        /**
         * {@code count} rows of {@code arity} datums each, of {@code rowBytes} bytes together, stored as the
         * leading datums of rows of {@code values}: row {@code i} is the first {@code arity} datums of
         * {@code values}' row {@code firstValue.at(i)}. They keep no bytes, lengths or offsets of their own.
         */
        static Rows prefixes(Rows values, Starts firstValue, int count, int arity, long rowBytes) {
            return new Rows(values.bytes, null, null, null, 0, count, rowBytes, values, firstValue, arity);
        }

        /** Whether these rows are {@linkplain #prefixes prefixes} of other rows, with no bytes of their own. */
        boolean arePrefixes() {
            return values != null;
        }

        /** The layout of these rows: {@code "stride"}, {@code "lengths"}, {@code "offsets"} or {@code "prefixes"}. */
        String layout() {
            return values != null ? "prefixes" : lengths != null ? "lengths" : offsets != null ? "offsets" : "stride";
        }

        int count() {
            return count;
        }

        /** Bytes of all the rows together. */
        long rowBytes() {
            return rowBytes;
        }

        int start(int i) {
            if (values != null) {
                return values.start(firstValue.at(i));
            }
            if (lengths != null) {
                return startInBlocks(lengths, blockStarts, i);
            }
            return offsets == null ? i * stride : offsets[i];
        }

        /**
         * The start of row {@code i} of the lengths layout: its block's start plus the lengths before it in
         * the block, the block's sixteen lengths read as two {@code long}s and added eight at a time, without
         * a branch (a binary search would mispredict one).
         */
        static int startInBlocks(byte[] lengths, int[] blockStarts, int i) {
            int from = i & -BLOCK;
            int bits = (i - from) << 3;
            // the lengths before row i, as low bytes of the little-endian words: Java shifts by bits mod 64,
            // so low is the mask of the word they end in, the first when bits < 64, the second otherwise
            long low = ~(-1L << bits);
            long second = -(long) (bits >>> 6);
            long a = (long) LONGS.get(lengths, from) & (low | second);
            long b = (long) LONGS.get(lengths, from + Long.BYTES) & (low & second);
            long lanes = (a & EVEN_BYTES) + ((a >>> 8) & EVEN_BYTES) + (b & EVEN_BYTES) + ((b >>> 8) & EVEN_BYTES);
            // four 16-bit lanes of at most 4 * 255; their sum in the top lane
            return blockStarts[i >>> BLOCK_SHIFT] + (int) ((lanes * 0x0001000100010001L) >>> 48);
        }

        int end(int i) {
            return end(i, start(i));
        }

        /** The end of row {@code i}, which starts at {@code start}. */
        int end(int i, int start) {
            if (values != null) {
                return Row.skip(bytes, start, arity);
            }
            if (lengths != null) {
                return start + (lengths[i] & 0xFF);
            }
            return offsets == null ? start + stride : offsets[i + 1];
        }

        Row row(int i) {
            int s = start(i);
            return Row.wrap(bytes, s, end(i, s) - s);
        }

        /** Compares row {@code i} with {@code other}. */
        int compare(int i, Row other) {
            int s = start(i);
            return -other.compareTo(bytes, s, end(i, s));
        }

        /** Compares row {@code i} with row {@code j} of {@code other}. */
        int compare(int i, Rows other, int j) {
            return compare(i, start(i), other, j, other.start(j));
        }

        /** Compares row {@code i}, which starts at {@code s}, with row {@code j} of {@code other}, at {@code t}. */
        int compare(int i, int s, Rows other, int j, int t) {
            return Row.compare(bytes, s, end(i, s), other.bytes, t, other.end(j, t));
        }

        /**
         * Approximate heap bytes of the rows' own arrays, each with a {@value #ARRAY_HEADER}-byte header, and
         * {@value #ARRAY_HEADER} more for the rows themselves: none for {@linkplain #prefixes prefixes}.
         */
        long byteSize() {
            if (values != null) {
                return 0;
            }
            long size = ARRAY_HEADER + bytes.length + ARRAY_HEADER;
            if (offsets != null) {
                size += ARRAY_HEADER + 4L * offsets.length;
            }
            if (lengths != null) {
                size += ARRAY_HEADER + lengths.length + ARRAY_HEADER + 4L * blockStarts.length;
            }
            return size;
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
