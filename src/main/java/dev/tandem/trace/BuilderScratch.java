package dev.tandem.trace;

import dev.tandem.row.Row;
import java.util.Arrays;

/**
 * The working arrays of one {@link BatchBuilder} between its first add and its build: the pending
 * updates' key and value rows, times and diffs, and the sort's index arrays. A builder takes one from a
 * {@link ScratchPool} when it starts collecting and gives it back once built, so building batch after
 * batch reuses the same arrays instead of allocating and growing new ones.
 */
final class BuilderScratch {

    final Slab keys = new Slab();
    final Slab vals = new Slab();
    long[] times = new long[64];
    long[] diffs = new long[64];
    /** The sort's output: update indices in {@code (key, val, time)} order. */
    int[] order = new int[0];
    /** The sort's input: each update's key prefix packed with its index. */
    long[] packed = new long[0];

    /** Room for {@code n} times and diffs in all. */
    void reserveUpdates(int n) {
        if (n > times.length) {
            times = Arrays.copyOf(times, n);
            diffs = Arrays.copyOf(diffs, n);
        }
    }

    /** Room for sorting {@code n} updates, allocated at exactly that size when what is held is too small. */
    void reserveSort(int n) {
        if (n > order.length) {
            order = new int[n];
            packed = new long[n];
        }
    }

    /** The number of updates the arrays hold without growing. */
    int capacity() {
        return Math.min(Math.min(keys.ends.length, times.length), order.length);
    }

    /** Empties the rows, keeping every array. */
    void reset() {
        keys.clear();
        vals.clear();
    }

    /** Heap bytes held by the arrays. */
    long byteSize() {
        return keys.byteSize() + vals.byteSize() + 16L * times.length + 12L * order.length;
    }

    /** Encoded rows back to back with end offsets. */
    static final class Slab {
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

        /** Room for {@code n} more bytes in {@code rows} more rows. */
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
        }
    }
}
