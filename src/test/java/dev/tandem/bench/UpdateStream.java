package dev.tandem.bench;

import dev.tandem.row.Row;
import dev.tandem.row.RowPacker;
import java.util.Arrays;

/**
 * A pre-packed stream of {@code n} updates with distinct keys in random order, so that benchmarks
 * measure the engine (building, sorting, merging) and not row packing: each key and value is a view of
 * one large array, as rows decoded from a columnar source would be.
 */
final class UpdateStream {

    /** The row shapes the benchmarks measure. */
    enum Shape {
        /** {@code (int64 key, int64 val)}. */
        INT64_INT64,
        /** {@code (string key, (int64, string, float64) val)}. */
        STRING_3COL
    }

    private static final String[] STATUSES = {"pending", "paid", "shipped", "delivered", "returned", "cancelled",
            "on-hold", "refunded"};

    private final PackedRows keys;
    private final PackedRows vals;

    private UpdateStream(PackedRows keys, PackedRows vals) {
        this.keys = keys;
        this.vals = vals;
    }

    static UpdateStream of(Shape shape, int n) {
        PackedRows.Builder keys = new PackedRows.Builder(n);
        PackedRows.Builder vals = new PackedRows.Builder(n);
        RowPacker p = new RowPacker(64);
        for (int i = 0; i < n; i++) {
            long k = mix(i);
            switch (shape) {
                case INT64_INT64 -> {
                    keys.add(p.pushInt64(k).finish());
                    vals.add(p.pushInt64(i).finish());
                }
                case STRING_3COL -> {
                    keys.add(p.pushString("cust-" + Long.toUnsignedString(k, 36)).finish());
                    vals.add(p.pushInt64(i)
                            .pushString(STATUSES[(int) (k >>> 61)])
                            .pushFloat64((k & 0xFFFFF) / 100.0)
                            .finish());
                }
            }
        }
        return new UpdateStream(keys.finish(), vals.finish());
    }

    int size() {
        return keys.count;
    }

    Row key(int i) {
        return keys.row(i);
    }

    Row val(int i) {
        return vals.row(i);
    }

    /** The splitmix64 finaliser: a bijection on {@code long}, so distinct inputs give distinct keys. */
    static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Encoded rows back to back in one array, with start offsets. */
    private record PackedRows(byte[] bytes, int[] offsets, int count) {

        Row row(int i) {
            return Row.wrap(bytes, offsets[i], offsets[i + 1] - offsets[i]);
        }

        static final class Builder {
            private byte[] bytes;
            private final int[] offsets;
            private int count;
            private int length;

            Builder(int n) {
                bytes = new byte[n * 16];
                offsets = new int[n + 1];
            }

            void add(Row row) {
                if (length + row.byteSize() > bytes.length) {
                    bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 3 / 2, length + row.byteSize()));
                }
                row.copyTo(bytes, length);
                length += row.byteSize();
                offsets[++count] = length;
            }

            PackedRows finish() {
                return new PackedRows(Arrays.copyOf(bytes, length), offsets, count);
            }
        }
    }
}
