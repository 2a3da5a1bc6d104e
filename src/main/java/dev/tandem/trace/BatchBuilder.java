package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.Arrays;

/**
 * Collects updates in any order and builds a sorted, consolidated {@link Batch}: updates with equal
 * {@code (key, val, time)} are summed and zero sums dropped. Times before {@code since} are advanced to
 * it when the batch is built.
 */
public final class BatchBuilder {

    private Update[] pending = new Update[64];
    private int size;

    /** One buffered update; {@code k0, k1} are the key's first two {@link Row#word}s, which decide most comparisons. */
    private record Update(Row key, Row val, long time, long diff, long k0, long k1) implements Comparable<Update> {
        Update(Row key, Row val, long time, long diff) {
            this(key, val, time, diff, key.word(0), key.word(1));
        }

        @Override
        public int compareTo(Update o) {
            int c = k0 != o.k0 ? Long.compareUnsigned(k0, o.k0) : k1 != o.k1 ? Long.compareUnsigned(k1, o.k1) : key.compareTo(o.key);
            if (c == 0) {
                c = val.compareTo(o.val);
            }
            return c != 0 ? c : Long.compare(time, o.time);
        }
    }

    public BatchBuilder add(Row key, Row val, long time, long diff) {
        if (diff == 0) {
            return this;
        }
        if (size == pending.length) {
            pending = Arrays.copyOf(pending, size * 2);
        }
        pending[size++] = new Update(key, val, time, diff);
        return this;
    }

    public int size() {
        return size;
    }

    /** Builds the batch {@code [lower, upper)}; every added time must lie in it. The builder is then empty. */
    public Batch build(Frontier lower, Frontier upper, Frontier since) {
        long sinceTime = since.isEmpty() ? Long.MAX_VALUE : since.time();
        Update[] ups = pending;
        for (int i = 0; i < size; i++) {
            Update u = ups[i];
            if (!lower.lessEqual(u.time) || !upper.isPast(u.time)) {
                throw new IllegalArgumentException("update at " + u.time + " outside batch [" + lower + ", " + upper + ")");
            }
            if (u.time < sinceTime) {
                ups[i] = new Update(u.key, u.val, sinceTime, u.diff, u.k0, u.k1);
            }
        }
        Arrays.sort(ups, 0, size);
        BatchWriter w = new BatchWriter();
        int i = 0;
        while (i < size) {
            Update u = ups[i];
            long sum = u.diff;
            int j = i + 1;
            while (j < size && ups[j].time == u.time && ups[j].key.equals(u.key) && ups[j].val.equals(u.val)) {
                sum += ups[j].diff;
                j++;
            }
            if (sum != 0) {
                w.push(u.key, u.val, u.time, sum);
            }
            i = j;
        }
        Arrays.fill(pending, 0, size, null);
        size = 0;
        return w.finish(lower, upper, since);
    }
}
