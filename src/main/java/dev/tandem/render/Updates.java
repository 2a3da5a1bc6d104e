package dev.tandem.render;

import dev.tandem.row.Row;
import java.util.Arrays;

/** A growable buffer of {@code (row, time, diff)} updates flowing between operators. */
final class Updates {

    Row[] rows;
    long[] times;
    long[] diffs;
    int size;

    Updates() {
        this(16);
    }

    Updates(int capacity) {
        rows = new Row[Math.max(capacity, 4)];
        times = new long[rows.length];
        diffs = new long[rows.length];
    }

    void add(Row row, long time, long diff) {
        if (size == rows.length) {
            int n = size * 2;
            rows = Arrays.copyOf(rows, n);
            times = Arrays.copyOf(times, n);
            diffs = Arrays.copyOf(diffs, n);
        }
        rows[size] = row;
        times[size] = time;
        diffs[size] = diff;
        size++;
    }

    void addAll(Updates other) {
        for (int i = 0; i < other.size; i++) {
            add(other.rows[i], other.times[i], other.diffs[i]);
        }
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        Arrays.fill(rows, 0, size, null);
        size = 0;
    }
}
