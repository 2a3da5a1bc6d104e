package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.Arrays;

/**
 * Appends already sorted and consolidated updates into a new {@link Batch}. Callers push updates in
 * {@code (key, val, time)} order with no zero diffs and no repeated {@code (key, val, time)}.
 */
final class BatchWriter {

    private final ByteColumn keys = new ByteColumn();
    private final ByteColumn vals = new ByteColumn();
    private int[] keyValStart = new int[16];
    private int[] valUpdStart = new int[16];
    private long[] times = new long[16];
    private long[] diffs = new long[16];
    private int updates;

    /** Pushes one update whose key and value are encoded rows in the given slices. */
    void push(byte[] kb, int ks, int ke, byte[] vb, int vs, int ve, long time, long diff) {
        boolean newKey = keys.count == 0 || !keys.lastEquals(kb, ks, ke);
        if (newKey) {
            keyValStart = grow(keyValStart, keys.count + 1);
            keyValStart[keys.count] = vals.count;
            keys.add(kb, ks, ke);
        }
        if (newKey || !vals.lastEquals(vb, vs, ve)) {
            valUpdStart = grow(valUpdStart, vals.count + 1);
            valUpdStart[vals.count] = updates;
            vals.add(vb, vs, ve);
        }
        pushUpdate(time, diff);
    }

    /** Pushes one update given as rows. */
    void push(Row key, Row val, long time, long diff) {
        boolean newKey = keys.count == 0 || !keys.lastEquals(key);
        if (newKey) {
            keyValStart = grow(keyValStart, keys.count + 1);
            keyValStart[keys.count] = vals.count;
            keys.add(key);
        }
        if (newKey || !vals.lastEquals(val)) {
            valUpdStart = grow(valUpdStart, vals.count + 1);
            valUpdStart[vals.count] = updates;
            vals.add(val);
        }
        pushUpdate(time, diff);
    }

    private void pushUpdate(long time, long diff) {
        if (updates == times.length) {
            times = Arrays.copyOf(times, updates * 2);
            diffs = Arrays.copyOf(diffs, updates * 2);
        }
        times[updates] = time;
        diffs[updates] = diff;
        updates++;
    }

    int updateCount() {
        return updates;
    }

    Batch finish(Frontier lower, Frontier upper, Frontier since) {
        int[] kvs = Arrays.copyOf(keyValStart, keys.count + 1);
        kvs[keys.count] = vals.count;
        int[] vus = Arrays.copyOf(valUpdStart, vals.count + 1);
        vus[vals.count] = updates;
        return new Batch(lower, upper, since, keys.finish(), startsOf(kvs), vals.finish(), startsOf(vus),
                Arrays.copyOf(times, updates), Arrays.copyOf(diffs, updates));
    }

    private static Batch.Starts startsOf(int[] starts) {
        for (int i = 0; i < starts.length; i++) {
            if (starts[i] != i) {
                return new Batch.Starts(starts);
            }
        }
        return new Batch.Starts(null);
    }

    private static int[] grow(int[] a, int need) {
        return need < a.length ? a : Arrays.copyOf(a, Math.max(need + 1, a.length * 2));
    }

    /** A growable packed byte column of rows with offsets. */
    private static final class ByteColumn {
        byte[] bytes = new byte[64];
        int[] offsets = new int[17];
        int count;
        int length;

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

        boolean lastEquals(Row row) {
            return row.compareTo(bytes, offsets[count - 1], offsets[count]) == 0;
        }

        private void reserve(int n) {
            if (length + n > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
            }
        }

        private void advance(int n) {
            length += n;
            count++;
            if (count + 1 > offsets.length) {
                offsets = Arrays.copyOf(offsets, offsets.length * 2);
            }
            offsets[count] = length;
        }

        boolean lastEquals(byte[] src, int s, int e) {
            return Arrays.equals(bytes, offsets[count - 1], offsets[count], src, s, e);
        }

        Batch.Rows finish() {
            byte[] packed = Arrays.copyOf(bytes, length);
            if (count > 0) {
                int stride = offsets[1];
                boolean fixed = stride > 0;
                for (int i = 1; fixed && i <= count; i++) {
                    fixed = offsets[i] - offsets[i - 1] == stride;
                }
                if (fixed) {
                    return new Batch.Rows(packed, null, stride, count);
                }
            }
            return new Batch.Rows(packed, Arrays.copyOf(offsets, count + 1), 0, count);
        }
    }
}
