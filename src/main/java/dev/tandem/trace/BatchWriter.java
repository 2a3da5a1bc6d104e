package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.Arrays;

/**
 * Appends already sorted and consolidated updates into a new {@link Batch}. Callers push updates in
 * {@code (key, val, time)} order with no zero diffs and no repeated {@code (key, val, time)}.
 *
 * <p>A writer sized up front with the output's bounds (as a merge or a builder knows them) never
 * grows an array, and hands its arrays to the batch uncopied when they end up exactly full. Times and
 * diffs get arrays only once they vary: a batch whose updates share one time and all count 1 (a
 * hydrated snapshot) stores neither per update, so none is written.
 *
 * <p>The batch's {@link KeyFilter} is filled key by key as they are written when the writer was told
 * how many keys to expect (a merge knows, from its inputs), so no single step pays for it all; otherwise,
 * or when far fewer keys came than expected (consolidation cancelled them), {@link #finish} builds it,
 * sized for the keys written.
 *
 * <p><b>Keys shared with values.</b> Keys are not written as they come: while every key has been the first
 * bytes of its first value, with as many datums as the first key, the writer stores no key bytes, lengths
 * or offsets at all (it compares the key with the value it has just written, and otherwise keeps only the key
 * count, the arity and the last key's place among the value bytes), and {@link #finish} makes the batch's
 * keys a {@linkplain Batch.Rows#prefixes view of its values}. The first key that is not such a prefix
 * creates the key column, sized as the writer was told, copies the keys before it out of their values
 * and stores every key from then on. So no key storage is allocated to be thrown away, and a batch that
 * cannot share pays only the copy of the keys written before it found out.
 */
final class BatchWriter {

    private final ByteColumn vals;
    /** The keys, or null while every key is a prefix of its first value (see the class comment). */
    private ByteColumn keys;
    /** Room for this many key bytes when the key column is created. */
    private final long expectedKeyBytes;
    private int keysWritten;
    private long keyBytesWritten;
    /** The first key's number of datums: that of every key while they are not stored. */
    private int keyArity;
    /** While keys are not stored, where the last key's bytes start among the value bytes, and their number. */
    private int lastKeyStart;
    private int lastKeyLength;
    /** Each key's first value; {@code null} while every key has exactly one (the identity). */
    private int[] keyValStart;
    /** Each value's first update; {@code null} while every value has exactly one (the identity). */
    private int[] valUpdStart;
    private final int expectedKeys;
    private final int expectedVals;
    /** Room for this many updates when times or diffs first need an array. */
    private final int expectedUpdates;
    /** Each update's time; null while every time is {@link #firstTime}. */
    private long[] times;
    private long firstTime;
    /** Each update's diff; null while every diff is 1. */
    private long[] diffs;
    private int updates;
    /** The key filter filled as keys are written (see the class comment), or null. */
    private final KeyFilter.Builder filling;

    BatchWriter() {
        this(64, 16, 64, 16, 16, false);
    }

    /**
     * A writer with room for the given numbers of key bytes, keys, value bytes, values and updates; with
     * {@code keysKnown}, {@code keyCount} bounds the keys to come closely enough to size the key filter.
     */
    BatchWriter(long keyBytes, int keyCount, long valBytes, int valCount, int updateCount, boolean keysKnown) {
        expectedKeyBytes = keyBytes;
        vals = new ByteColumn(capacity(valBytes), valCount);
        expectedKeys = keyCount;
        expectedVals = valCount;
        expectedUpdates = updateCount;
        filling = keysKnown ? new KeyFilter.Builder(keyCount) : null;
    }

    private static int capacity(long bytes) {
        return (int) Math.min(bytes, Integer.MAX_VALUE - 8);
    }

    /**
     * Pushes one update whose key and value are encoded rows in the given slices, the caller telling
     * whether the key differs from the last one pushed and (for the same key) whether the value does,
     * as a merge knows without comparing bytes.
     */
    void push(byte[] kb, int ks, int ke, boolean newKey, byte[] vb, int vs, int ve, boolean newVal, long time,
            long diff) {
        if (newKey) {
            startKey();
        }
        if (newKey || newVal) {
            startVal(newKey);
            vals.add(vb, vs, ve);
        }
        if (newKey) {
            int n = ke - ks;
            if (!keepAsPrefix(n, n <= vals.lastLength()
                    && Row.compare(kb, ks, ke, vals.bytes, vals.lastStart, vals.lastStart + n) == 0)) {
                keys.add(kb, ks, ke);
            }
            keyAdded(n);
        }
        pushUpdate(time, diff);
    }

    /** Pushes one update given as rows. */
    void push(Row key, Row val, long time, long diff) {
        boolean newKey = keysWritten == 0 || !lastKeyEquals(key);
        if (newKey) {
            startKey();
        }
        if (newKey || !vals.lastEquals(val)) {
            startVal(newKey);
            vals.add(val);
        }
        if (newKey) {
            int n = key.byteSize();
            if (!keepAsPrefix(n, n <= vals.lastLength()
                    && key.compareTo(vals.bytes, vals.lastStart, vals.lastStart + n) == 0)) {
                keys.add(key);
            }
            keyAdded(n);
        }
        pushUpdate(time, diff);
    }

    private boolean lastKeyEquals(Row key) {
        return keys != null ? keys.lastEquals(key)
                : key.compareTo(vals.bytes, lastKeyStart, lastKeyStart + lastKeyLength) == 0;
    }

    /**
     * Whether a new key of {@code n} bytes is kept as the prefix of the value just written, given whether
     * they are its first bytes; if not, the key column exists (see {@link #storeKeys}) for the caller to
     * store the key in.
     */
    private boolean keepAsPrefix(int n, boolean prefixBytes) {
        if (keys != null) {
            return false;
        }
        int from = vals.lastStart;
        if (prefixBytes) {
            int arity = Row.arity(vals.bytes, from, from + n);
            if (keysWritten == 0) {
                keyArity = arity;
            }
            if (arity == keyArity) {
                lastKeyStart = from;
                lastKeyLength = n;
                return true;
            }
        }
        storeKeys();
        return false;
    }

    /** Creates the key column, with a copy of each key so far out of its first value. */
    private void storeKeys() {
        keys = new ByteColumn(capacity(expectedKeyBytes), expectedKeys);
        for (int k = 0; k < keysWritten; k++) {
            int s = vals.start(keyValStart == null ? k : keyValStart[k]);
            keys.add(vals.bytes, s, Row.skip(vals.bytes, s, keyArity));
        }
    }

    /** Counts the new key of {@code n} bytes just kept, and adds it to the filter being filled, if any. */
    private void keyAdded(int n) {
        keysWritten++;
        keyBytesWritten += n;
        if (filling != null) {
            if (keys == null) {
                filling.add(vals.bytes, lastKeyStart, lastKeyStart + n);
            } else {
                filling.add(keys.bytes, keys.lastStart, keys.lastEnd());
            }
        }
    }

    private void startKey() {
        if (keyValStart != null) {
            keyValStart = room(keyValStart, keysWritten);
            keyValStart[keysWritten] = vals.count;
        }
    }

    private void startVal(boolean newKey) {
        if (!newKey && keyValStart == null) {
            keyValStart = identity(keysWritten, expectedKeys);
        }
        if (valUpdStart != null) {
            valUpdStart = room(valUpdStart, vals.count);
            valUpdStart[vals.count] = updates;
        }
    }

    private void pushUpdate(long time, long diff) {
        if (updates == 0) {
            firstTime = time;
        } else if (times == null && time != firstTime) {
            times = filled(firstTime);
        }
        if (diffs == null && diff != 1) {
            diffs = filled(1);
        }
        if (valUpdStart == null && vals.count == updates) {
            // a second update for the last value
            valUpdStart = identity(vals.count, expectedVals);
        }
        if (times != null) {
            times = room(times, updates);
            times[updates] = time;
        }
        if (diffs != null) {
            diffs = room(diffs, updates);
            diffs[updates] = diff;
        }
        updates++;
    }

    /** An array with room for the expected updates whose entries for the updates so far are {@code value}. */
    private long[] filled(long value) {
        long[] a = new long[Math.max(expectedUpdates, updates + 1)];
        Arrays.fill(a, 0, updates, value);
        return a;
    }

    /** {@code a}, or a longer copy, with room for an entry at {@code index}. */
    private static long[] room(long[] a, int index) {
        return index < a.length ? a : Arrays.copyOf(a, Math.max(16, index * 2));
    }

    /** Starts {@code 0, 1, ..., n-1} with room for {@code expected} groups and the end. */
    private static int[] identity(int n, int expected) {
        int[] a = new int[Math.max(n, expected) + 1];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    /** {@code a}, or a longer copy, with room for an entry at {@code index}. */
    private static int[] room(int[] a, int index) {
        return index < a.length ? a : Arrays.copyOf(a, Math.max(index + 1, a.length * 2));
    }

    int updateCount() {
        return updates;
    }

    /**
     * The filter of the written keys, {@code keys}, which are stored or prefixes of {@code vals}, each key's
     * first value given by {@code firstVal}: the one filled, unless it was sized for over twice the keys that
     * came. Rows are read in order, each starting where the one before it ended, so no start is computed
     * from the rows' lengths.
     */
    private KeyFilter keyFilter(Batch.Rows keys, Batch.Rows vals, Batch.Starts firstVal) {
        if (filling != null && keysWritten <= expectedKeys && 2L * keysWritten >= expectedKeys) {
            return filling.build();
        }
        KeyFilter.Builder filter = new KeyFilter.Builder(keysWritten);
        int s = 0;
        int v = 0;
        int vs = 0;
        for (int k = 0; k < keysWritten; k++) {
            if (keys.arePrefixes()) {
                for (int first = firstVal.at(k); v < first; v++) {
                    vs = vals.end(v, vs);
                }
                s = vs;
            }
            int e = keys.end(k, s);
            filter.add(keys.bytes, s, e);
            s = e;
        }
        return filter.build();
    }

    Batch finish(Frontier lower, Frontier upper, Frontier since) {
        Batch.Starts kvs = new Batch.Starts(null);
        if (keyValStart != null) {
            keyValStart = room(keyValStart, keysWritten);
            keyValStart[keysWritten] = vals.count;
            kvs = new Batch.Starts(exact(keyValStart, keysWritten + 1));
        }
        Batch.Starts vus = new Batch.Starts(null);
        if (valUpdStart != null) {
            valUpdStart = room(valUpdStart, vals.count);
            valUpdStart[vals.count] = updates;
            vus = new Batch.Starts(exact(valUpdStart, vals.count + 1));
        }
        long[] t = times != null ? exact(times, updates) : updates == 0 ? new long[0] : new long[] {firstTime};
        Batch.Rows v = vals.finish();
        Batch.Rows k = keys != null ? keys.finish()
                : Batch.Rows.prefixes(v, kvs, keysWritten, keyArity, keyBytesWritten);
        return new Batch(lower, upper, since, k, kvs, v, vus, updates, t, diffs != null ? exact(diffs, updates) : null,
                keyFilter(k, v, kvs));
    }

    private static byte[] exact(byte[] a, int n) {
        return a.length == n ? a : Arrays.copyOf(a, n);
    }

    private static int[] exact(int[] a, int n) {
        return a.length == n ? a : Arrays.copyOf(a, n);
    }

    private static long[] exact(long[] a, int n) {
        return a.length == n ? a : Arrays.copyOf(a, n);
    }

    /**
     * A growable packed byte column of rows, building the {@linkplain Batch.Rows layout} its rows allow as
     * they come. While every row has the same length it stores no lengths or offsets (the stride gives
     * them); the first row of another length switches it to one-byte lengths with the start of every
     * {@link Batch.Rows#BLOCK}th row, when every row so far is short enough, and the first longer row to
     * {@code int} start offsets, computed from what was stored before. Each array is sized for the expected
     * rows when it is created.
     */
    private static final class ByteColumn {
        private byte[] bytes;
        /** The start of each row, and the end of the last, in the offsets layout; else null. */
        private int[] offsets;
        /** In the lengths layout, each row's length (padded to whole blocks) and each block's start; else null. */
        private byte[] lengths;
        private int[] blockStarts;
        private final int expectedCount;
        private int stride = -1;
        int count;
        private int length;
        private int lastStart;

        ByteColumn(int byteCapacity, int expectedCount) {
            this.bytes = new byte[Math.max(byteCapacity, 8)];
            this.expectedCount = expectedCount;
        }

        void add(byte[] src, int s, int e) {
            int n = e - s;
            reserve(n);
            System.arraycopy(src, s, bytes, length, n);
            advance(n);
        }

        void add(Row row) {
            int n = row.byteSize();
            reserve(n);
            row.copyTo(bytes, length);
            advance(n);
        }

        int start(int i) {
            if (lengths != null) {
                return Batch.Rows.startInBlocks(lengths, blockStarts, i);
            }
            return offsets == null ? i * stride : offsets[i];
        }

        /** The length of the last row added. */
        int lastLength() {
            return length - lastStart;
        }

        /** Where the last row added ends. */
        int lastEnd() {
            return length;
        }

        boolean lastEquals(Row row) {
            return row.compareTo(bytes, lastStart, length) == 0;
        }

        private void reserve(int n) {
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 8,
                        Math.max(2L * bytes.length, (long) length + n)));
            }
        }

        /** Records a row of {@code n} bytes just copied in at {@code length}. */
        private void advance(int n) {
            int row = count;
            if (row == 0) {
                stride = n;
            } else if (offsets == null && lengths == null && n != stride) {
                if (Math.max(n, stride) <= Batch.Rows.MAX_SHORT_LENGTH) {
                    toLengths();
                } else {
                    toOffsets();
                }
            } else if (lengths != null && n > Batch.Rows.MAX_SHORT_LENGTH) {
                toOffsets();
            }
            if (lengths != null) {
                if (row >= lengths.length) {
                    lengths = Arrays.copyOf(lengths, blocks(Math.max(row + 1, 2L * lengths.length)) * Batch.Rows.BLOCK);
                    blockStarts = Arrays.copyOf(blockStarts, lengths.length / Batch.Rows.BLOCK);
                }
                lengths[row] = (byte) n;
                if ((row & (Batch.Rows.BLOCK - 1)) == 0) {
                    blockStarts[row >>> Batch.Rows.BLOCK_SHIFT] = length;
                }
            }
            lastStart = length;
            length += n;
            count++;
            if (offsets != null) {
                if (count >= offsets.length) {
                    offsets = Arrays.copyOf(offsets, Math.max(count + 1, offsets.length * 2));
                }
                offsets[count] = length;
            }
        }

        /** Blocks of {@link Batch.Rows#BLOCK} rows that hold {@code rows} rows. */
        private static int blocks(long rows) {
            return (int) Math.min(Math.ceilDiv(rows, Batch.Rows.BLOCK), (Integer.MAX_VALUE - 8) / Batch.Rows.BLOCK);
        }

        /** Switches from the stride to the lengths layout, with room for the expected rows. */
        private void toLengths() {
            int blocks = blocks(Math.max(expectedCount, count + 1L));
            lengths = new byte[blocks * Batch.Rows.BLOCK];
            blockStarts = new int[blocks];
            Arrays.fill(lengths, 0, count, (byte) stride);
            for (int b = 0; b * Batch.Rows.BLOCK < count; b++) {
                blockStarts[b] = b * Batch.Rows.BLOCK * stride;
            }
        }

        /** Switches to the offsets layout, from the stride or the lengths, with room for the expected rows. */
        private void toOffsets() {
            int[] o = new int[Math.max(expectedCount, count + 1) + 1];
            for (int i = 0; i < count; i++) {
                o[i + 1] = o[i] + (lengths != null ? lengths[i] & 0xFF : stride);
            }
            offsets = o;
            lengths = null;
            blockStarts = null;
        }

        Batch.Rows finish() {
            byte[] packed = bytes.length == length ? bytes : Arrays.copyOf(bytes, length);
            if (offsets != null) {
                return Batch.Rows.withOffsets(packed, exact(offsets, count + 1), count);
            }
            if (lengths != null) {
                int blocks = blocks(count);
                return Batch.Rows.withLengths(packed, exact(lengths, blocks * Batch.Rows.BLOCK),
                        exact(blockStarts, blocks), count);
            }
            // every row has the same length (empty rows included: stride 0), or there are none
            return Batch.Rows.strided(packed, Math.max(stride, 0), count);
        }
    }
}
