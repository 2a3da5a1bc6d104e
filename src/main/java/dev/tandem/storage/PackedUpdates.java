package dev.tandem.storage;

import dev.tandem.row.Row;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.RandomAccess;

/**
 * An immutable list of table updates stored as primitive columns: the rows' encodings back to back
 * with end offsets, their times and diffs. A snapshot of a million rows is four arrays, not a
 * million objects; {@link #get(int)} and {@link #row(int)} make views on demand.
 */
public final class PackedUpdates extends AbstractList<TableUpdate> implements RandomAccess {

    private final byte[] bytes;
    private final int[] ends;
    private final long[] times;
    private final long[] diffs;
    private final int size;

    private PackedUpdates(byte[] bytes, int[] ends, long[] times, long[] diffs, int size) {
        this.bytes = bytes;
        this.ends = ends;
        this.times = times;
        this.diffs = diffs;
        this.size = size;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public TableUpdate get(int i) {
        return new TableUpdate(row(i), time(i), diff(i));
    }

    /** A view of the row of update {@code i}. */
    public Row row(int i) {
        int start = i == 0 ? 0 : ends[i - 1];
        return Row.wrap(bytes, start, ends[i] - start);
    }

    /** The array holding the rows' encodings; row {@code i} is {@code [rowStart(i), rowEnd(i))}. Never modify it. */
    public byte[] rowBytes() {
        return bytes;
    }

    public int rowStart(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    public int rowEnd(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return ends[i];
    }

    public long time(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return times[i];
    }

    public long diff(int i) {
        if (i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return diffs[i];
    }

    /** Collects updates into a {@link PackedUpdates}. */
    public static final class Builder {
        private byte[] bytes = new byte[256];
        private int[] ends = new int[16];
        private long[] times = new long[16];
        private long[] diffs = new long[16];
        private int size;
        private int length;

        public Builder add(Row row, long time, long diff) {
            int n = row.byteSize();
            if (length + n > bytes.length) {
                long want = Math.max(2L * bytes.length, (long) length + n);
                if (want > Integer.MAX_VALUE - 8) {
                    throw new IllegalStateException("more than 2 GB of rows in one batch of updates");
                }
                bytes = Arrays.copyOf(bytes, (int) want);
            }
            if (size == ends.length) {
                ends = Arrays.copyOf(ends, size * 2);
                times = Arrays.copyOf(times, size * 2);
                diffs = Arrays.copyOf(diffs, size * 2);
            }
            row.copyTo(bytes, length);
            length += n;
            ends[size] = length;
            times[size] = time;
            diffs[size] = diff;
            size++;
            return this;
        }

        public int size() {
            return size;
        }

        public PackedUpdates build() {
            return new PackedUpdates(Arrays.copyOf(bytes, length), Arrays.copyOf(ends, size), Arrays.copyOf(times, size),
                    Arrays.copyOf(diffs, size), size);
        }
    }
}
