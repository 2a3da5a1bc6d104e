package dev.tandem.trace;

import dev.tandem.row.Row;

/**
 * A batch's sparse key index: the {@linkplain Row#orderPrefix() order prefix} of every {@value #STEP}th key
 * in one primitive {@code long[]}, so that a seek in a large batch binary-searches the samples and then at
 * most {@value #STEP} keys of the key column.
 *
 * <h2>Why</h2>
 * A binary search of a large key column misses the cache on every halving past the levels that stay cached,
 * twice where keys are not all of one length: where the key starts, then its bytes, the second load waiting
 * for the first.
 * The samples, one {@code long} per {@value #STEP} keys, are a small array: more of its halvings hit the
 * cache and each one that misses misses once; the search then ends within {@value #STEP} keys, a few cache
 * lines of row lengths or offsets and bytes.
 *
 * <h2>Shared bytes</h2>
 * Keys of a batch often begin alike (a string key's tag and a common prefix such as {@code cust-}), and
 * prefixes taken from their first byte would then all be equal and decide nothing. So the prefixes are taken
 * after the bytes that every key of the batch shares: those its first and last keys share, since keys sort
 * as byte strings. A key without those bytes sorts before or after every key of the batch.
 *
 * <h2>Size</h2>
 * One eight-byte sample per {@value #STEP} keys is a quarter of a byte a key (the {@link KeyFilter} costs
 * 1.25). It is read from the keys when the batch is made, so it depends on them alone.
 */
final class KeyIndex {

    /** Keys per sample. */
    static final int STEP = 32;

    private final Batch.Rows keys;
    /** The bytes every key of the batch begins with, as a view of its first key. */
    private final Row shared;
    /** The order prefix of keys {@code 0, STEP, 2 * STEP, ...}, after the {@link #shared} bytes. */
    private final long[] samples;

    KeyIndex(Batch.Rows keys) {
        this.keys = keys;
        int n = keys.count();
        shared = n == 0 ? Row.EMPTY : Row.wrap(keys.bytes, keys.start(0), sharedLength(keys, 0, n - 1));
        int skip = shared.byteSize();
        samples = new long[Math.ceilDiv(n, STEP)];
        for (int j = 0; j < samples.length; j++) {
            int k = j * STEP;
            int s = keys.start(k);
            samples[j] = Row.orderPrefix(keys.bytes, s + skip, keys.end(k, s));
        }
    }

    /** The length of the longest common prefix of keys {@code a} and {@code b}. */
    private static int sharedLength(Batch.Rows keys, int a, int b) {
        int from = keys.start(a);
        int other = keys.start(b);
        int n = Math.min(keys.end(a, from) - from, keys.end(b, other) - other);
        int i = 0;
        while (i < n && keys.bytes[from + i] == keys.bytes[other + i]) {
            i++;
        }
        return i;
    }

    /** The index of the first key {@code >= key} (the key count when there is none). */
    int seek(Row key) {
        if (!key.startsWith(shared)) {
            return key.compareTo(shared) < 0 ? 0 : keys.count();
        }
        long prefix = key.orderPrefix(shared.byteSize());
        int below = firstSample(prefix, 0, false);
        int above = below < samples.length && samples[below] == prefix ? firstSample(prefix, below, true) : below;
        // sample (below - 1)'s key and those before it are less than the key, sample (above)'s and those after greater
        int lo = below == 0 ? 0 : (below - 1) * STEP + 1;
        int hi = (int) Math.min((long) above * STEP, keys.count());
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

    /**
     * The first sample from {@code from} on whose prefix is not below {@code prefix} or, with
     * {@code pastEqual}, is above it.
     */
    private int firstSample(long prefix, int from, boolean pastEqual) {
        int lo = from;
        int hi = samples.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            int c = Long.compareUnsigned(samples[mid], prefix);
            if (c < 0 || pastEqual && c == 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Heap bytes of the samples. */
    long byteSize() {
        return 8L * samples.length;
    }
}
