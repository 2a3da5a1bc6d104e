package dev.tandem.trace;

import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
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
     * value order. Where there are several batches, only those whose {@linkplain Batch#mayHoldKey key
     * filter} admits the key are searched (a lone batch is searched at once: its filter would only add a
     * hash and a cache miss to a search that decides anyway). When one batch holds the key (the common case) it is read directly, allocating
     * nothing; otherwise a cursor over the batches holding it merges their values.
     */
    public void lookup(Row key, long t, Cursor.ValDiff out) {
        boolean filtered = batches.size() > 1;
        long keyHash = filtered ? key.hash64() : 0;
        Batch first = null;
        int firstIdx = -1;
        List<Batch> holding = null;
        for (Batch b : batches) {
            int k = !filtered || b.mayHoldKey(keyHash) ? b.findKey(key) : -1;
            if (k < 0) {
                continue;
            }
            if (first == null) {
                first = b;
                firstIdx = k;
            } else {
                if (holding == null) {
                    holding = new ArrayList<>();
                    holding.add(first);
                }
                holding.add(b);
            }
        }
        if (holding != null) {
            Cursor c = new TraceCursor(holding);
            c.seekKey(key);
            c.accumulate(t, out);
        } else if (first != null) {
            first.accumulate(firstIdx, t, out);
        }
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
