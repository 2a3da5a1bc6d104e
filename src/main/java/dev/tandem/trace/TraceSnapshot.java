package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.List;

/**
 * An immutable view of a trace: its batches, its write frontier {@code upper} and its compaction
 * frontier {@code since}. Taken without locks or row copies, it stays valid and correct while the
 * owner keeps inserting and merging: accumulations at any {@code since <= t < upper} are exact.
 */
public record TraceSnapshot(List<Batch> batches, Frontier upper, Frontier since) {

    /** Receives one key, value and accumulated multiplicity. */
    @FunctionalInterface
    public interface KeyValDiff {
        void accept(Row key, Row val, long diff);
    }

    public TraceSnapshot {
        batches = List.copyOf(batches);
    }

    public static TraceSnapshot empty(Frontier upper, Frontier since) {
        return new TraceSnapshot(List.of(), upper, since);
    }

    public Cursor cursor() {
        return new TraceCursor(batches);
    }

    /** Calls {@code out} for every key and value with a non-zero accumulation at {@code t}, in order. */
    public void scan(long t, KeyValDiff out) {
        Cursor c = cursor();
        while (c.keyValid()) {
            Row key = c.key();
            c.accumulate(t, (val, diff) -> out.accept(key, val, diff));
            c.stepKey();
        }
    }

    /**
     * Calls {@code out} for the values of {@code key} with non-zero accumulations at {@code t}, in
     * value order.
     *
     * <p>Where there are several batches, only those whose {@linkplain Batch#mayHoldKey key filter} admits
     * the key are searched, and the filters of up to 64 batches are all probed before any search: the probes
     * are independent loads that the processor overlaps, unless a search (a chain of dependent loads) sits
     * between them. A lone batch is searched at once: its filter would only add a hash and a cache miss to a
     * search that decides anyway. A key held by one batch (the common case) is read from it directly,
     * allocating nothing; the values of a key held by several are merged from where the searches found it.
     */
    public void lookup(Row key, long t, Cursor.ValDiff out) {
        int n = batches.size();
        if (n == 1) {
            Batch only = batches.getFirst();
            int k = only.findKey(key);
            if (k >= 0) {
                only.accumulate(k, t, out);
            }
            return;
        }
        long keyHash = key.hash64();
        Batch first = null;
        int firstKey = -1;
        // once a second batch holds the key: the batches holding it and the ranges of its values in them
        Batch[] at = null;
        int[] pos = null;
        int[] end = null;
        int holders = 0;
        for (int base = 0; base < n; base += Long.SIZE) {
            int chunk = Math.min(Long.SIZE, n - base);
            long admitted = 0;
            for (int i = 0; i < chunk; i++) {
                if (batches.get(base + i).mayHoldKey(keyHash)) {
                    admitted |= 1L << i;
                }
            }
            for (; admitted != 0; admitted &= admitted - 1) {
                Batch b = batches.get(base + Long.numberOfTrailingZeros(admitted));
                int k = b.findKey(key);
                if (k < 0) {
                    continue;
                }
                if (holders == 0) {
                    first = b;
                    firstKey = k;
                } else {
                    if (at == null) {
                        at = new Batch[n];
                        pos = new int[n];
                        end = new int[n];
                        hold(first, firstKey, at, pos, end, 0);
                    }
                    hold(b, k, at, pos, end, holders);
                }
                holders++;
            }
        }
        if (holders == 1) {
            first.accumulate(firstKey, t, out);
        } else if (holders > 1) {
            TraceCursor.accumulate(at, pos, end, holders, t, out);
        }
    }

    /** Records batch {@code b}, holding the key at index {@code k}, as the {@code i}th holder of a lookup. */
    private static void hold(Batch b, int k, Batch[] at, int[] pos, int[] end, int i) {
        at[i] = b;
        pos[i] = b.keyValStart.at(k);
        end[i] = b.keyValStart.at(k + 1);
    }

    /** Total updates held (a measure of memory after compaction). */
    public long records() {
        long n = 0;
        for (Batch b : batches) {
            n += b.updateCount();
        }
        return n;
    }

    public long byteSize() {
        long n = 0;
        for (Batch b : batches) {
            n += b.byteSize();
        }
        return n;
    }
}
