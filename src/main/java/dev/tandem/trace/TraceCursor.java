package dev.tandem.trace;

import dev.tandem.row.Row;
import java.util.List;

/** A cursor over the batches of a snapshot, merging their keys and values in order. */
final class TraceCursor implements Cursor {

    private final BatchCursor[] cursors;
    private Row current;

    TraceCursor(List<Batch> batches) {
        int n = 0;
        for (Batch b : batches) {
            if (!b.isEmpty()) {
                n++;
            }
        }
        cursors = new BatchCursor[n];
        int i = 0;
        for (Batch b : batches) {
            if (!b.isEmpty()) {
                cursors[i++] = new BatchCursor(b);
            }
        }
        findCurrent();
    }

    private void findCurrent() {
        Row min = null;
        for (BatchCursor c : cursors) {
            if (c.keyValid()) {
                Row k = c.key();
                if (min == null || k.compareTo(min) < 0) {
                    min = k;
                }
            }
        }
        current = min;
    }

    private boolean atCurrent(BatchCursor c) {
        return c.keyValid() && c.batch.keys.compare(c.keyIdx, current) == 0;
    }

    @Override
    public boolean keyValid() {
        return current != null;
    }

    @Override
    public Row key() {
        return current;
    }

    @Override
    public void stepKey() {
        for (BatchCursor c : cursors) {
            if (atCurrent(c)) {
                c.stepKey();
            }
        }
        findCurrent();
    }

    @Override
    public void seekKey(Row key) {
        for (BatchCursor c : cursors) {
            c.seekKey(key);
        }
        findCurrent();
    }

    @Override
    public void accumulate(long t, ValDiff out) {
        if (current == null) {
            return;
        }
        int n = 0;
        Batch[] at = new Batch[cursors.length];
        int[] pos = new int[cursors.length];
        int[] end = new int[cursors.length];
        BatchCursor holder = null;
        for (BatchCursor c : cursors) {
            if (atCurrent(c)) {
                at[n] = c.batch;
                pos[n] = c.valStart();
                end[n] = c.valEnd();
                n++;
                holder = c;
            }
        }
        if (n == 1) {
            holder.accumulate(t, out);
            return;
        }
        accumulate(at, pos, end, n, t, out);
    }

    /**
     * Calls {@code out} for each value of one key held by the batches {@code at[0, n)}, in value order, with
     * the sum over the batches of its diffs at times {@code <= t}, skipping zero sums; the key's values in
     * {@code at[i]} are {@code [pos[i], end[i])}, and {@code pos} is used up.
     */
    static void accumulate(Batch[] at, int[] pos, int[] end, int n, long t, ValDiff out) {
        while (true) {
            int minIdx = -1;
            for (int i = 0; i < n; i++) {
                if (pos[i] < end[i] && (minIdx < 0 || at[i].vals.compare(pos[i], at[minIdx].vals, pos[minIdx]) < 0)) {
                    minIdx = i;
                }
            }
            if (minIdx < 0) {
                return;
            }
            Batch.Rows minRows = at[minIdx].vals;
            int minPos = pos[minIdx];
            long sum = 0;
            for (int i = 0; i < n; i++) {
                if (pos[i] < end[i] && (i == minIdx || at[i].vals.compare(pos[i], minRows, minPos) == 0)) {
                    sum += at[i].diffAt(pos[i], t);
                    if (i != minIdx) {
                        pos[i]++;
                    }
                }
            }
            pos[minIdx]++;
            if (sum != 0) {
                out.accept(minRows.row(minPos), sum);
            }
        }
    }

    @Override
    public void forEachUpdate(ValUpdate out) {
        if (current == null) {
            return;
        }
        for (BatchCursor c : cursors) {
            if (atCurrent(c)) {
                c.forEachUpdate(out);
            }
        }
    }
}
