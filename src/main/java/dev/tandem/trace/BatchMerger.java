package dev.tandem.trace;

import dev.tandem.time.Frontier;
import java.util.Arrays;

/**
 * Merges two adjacent batches into one, a bounded amount of work at a time. Times before the merge's
 * {@code since} are advanced to it, equal {@code (key, val, time)} updates are summed, and zero sums
 * dropped (logical compaction). The output's {@link KeyFilter} is built by {@link BatchWriter#finish}, in one
 * pass over the merged keys, uncharged to the fuel: charged, merges finished later and a spine at rest held
 * their inputs and outputs both (live heap per row of a table with one index went from 43 to 84 bytes).
 */
final class BatchMerger {

    private final Batch older;
    private final Batch newer;
    private final Frontier since;
    /** Times before this are advanced to it: {@code since}'s time ({@code Long.MAX_VALUE} for the empty frontier). */
    private final long floor;
    private final BatchWriter out;
    private int keyA;
    private int keyB;
    private int valA;
    private int valB;
    /**
     * Where the bytes of keys {@code keyA} and {@code keyB} start, when their batch's keys have bytes of their
     * own, and those of values {@code valA} and {@code valB}: each the end of the row before, so that a merge,
     * reading rows in order, never computes a row's start from the batch's lengths.
     */
    private int keyStartA;
    private int keyStartB;
    private int valStartA;
    private int valStartB;
    /** Whether the key being merged has been written to the output yet. */
    private boolean keyWritten;
    private long[] scratchTimes = new long[16];
    private long[] scratchDiffs = new long[16];

    BatchMerger(Batch older, Batch newer, Frontier since) {
        this.older = older;
        this.newer = newer;
        this.since = since;
        this.floor = since.isEmpty() ? Long.MAX_VALUE : since.time();
        this.out = new BatchWriter(
                older.keys.rowBytes() + newer.keys.rowBytes(), older.keyCount() + newer.keyCount(),
                older.vals.rowBytes() + newer.vals.rowBytes(), older.vals.count() + newer.vals.count(),
                older.updateCount() + newer.updateCount(), true);
        valA = older.keyValStart.at(0);
        valB = newer.keyValStart.at(0);
    }

    /** Where the next key of the older or the newer batch starts: where its first value does, for prefix keys. */
    private int keyStart(boolean isOlder) {
        Batch b = isOlder ? older : newer;
        if (b.keys.arePrefixes()) {
            return isOlder ? valStartA : valStartB;
        }
        return isOlder ? keyStartA : keyStartB;
    }

    Batch older() {
        return older;
    }

    Batch newer() {
        return newer;
    }

    int size() {
        return older.updateCount() + newer.updateCount();
    }

    boolean done() {
        return keyA >= older.keyCount() && keyB >= newer.keyCount();
    }

    /** Merges until about {@code fuel} updates are consumed or the merge is done; returns the fuel left. */
    long work(long fuel) {
        while (fuel > 0 && !done()) {
            int c;
            if (keyA >= older.keyCount()) {
                c = 1;
            } else if (keyB >= newer.keyCount()) {
                c = -1;
            } else {
                c = older.keys.compare(keyA, keyStart(true), newer.keys, keyB, keyStart(false));
            }
            if (c < 0) {
                fuel -= copyKey(older, keyA, true);
                keyA++;
            } else if (c > 0) {
                fuel -= copyKey(newer, keyB, false);
                keyB++;
            } else {
                fuel -= mergeKey();
                keyA++;
                keyB++;
            }
        }
        return fuel;
    }

    Batch finish() {
        return out.finish(older.lower(), newer.upper(), since);
    }

    private int copyKey(Batch b, int key, boolean isOlder) {
        int ks = keyStart(isOlder);
        int ke = b.keys.end(key, ks);
        int vEnd = b.keyValStart.at(key + 1);
        int v = isOlder ? valA : valB;
        int vs = isOlder ? valStartA : valStartB;
        int consumed = 0;
        int u = b.valUpdStart.at(v);
        if (vEnd == v + 1 && b.valUpdStart.at(v + 1) == u + 1) {
            // one value with one update, the common case: nothing to consolidate
            int ve = b.vals.end(v, vs);
            out.push(b.keys.bytes, ks, ke, true, b.vals.bytes, vs, ve, true, Math.max(b.time(u), floor), b.diff(u));
            v++;
            vs = ve;
            consumed = 1;
        } else {
            keyWritten = false;
            for (; v < vEnd; v++) {
                int ve = b.vals.end(v, vs);
                consumed += emit(b.keys.bytes, ks, ke, b, v, vs, ve, null, -1);
                vs = ve;
            }
        }
        if (isOlder) {
            keyStartA = ke;
            valA = v;
            valStartA = vs;
        } else {
            keyStartB = ke;
            valB = v;
            valStartB = vs;
        }
        return consumed;
    }

    private int mergeKey() {
        keyWritten = false;
        int consumed = 0;
        int ks = keyStart(true);
        int ke = older.keys.end(keyA, ks);
        keyStartB = newer.keys.end(keyB, keyStart(false));
        keyStartA = ke;
        int endA = older.keyValStart.at(keyA + 1);
        int endB = newer.keyValStart.at(keyB + 1);
        while (valA < endA || valB < endB) {
            int c;
            if (valA >= endA) {
                c = 1;
            } else if (valB >= endB) {
                c = -1;
            } else {
                c = older.vals.compare(valA, valStartA, newer.vals, valB, valStartB);
            }
            if (c <= 0) {
                int ve = older.vals.end(valA, valStartA);
                if (c == 0) {
                    consumed += emit(older.keys.bytes, ks, ke, older, valA, valStartA, ve, newer, valB);
                    valStartB = newer.vals.end(valB++, valStartB);
                } else {
                    consumed += emit(older.keys.bytes, ks, ke, older, valA, valStartA, ve, null, -1);
                }
                valA++;
                valStartA = ve;
            } else {
                int ve = newer.vals.end(valB, valStartB);
                consumed += emit(older.keys.bytes, ks, ke, newer, valB, valStartB, ve, null, -1);
                valB++;
                valStartB = ve;
            }
        }
        return consumed;
    }

    /**
     * Emits value {@code v} of {@code a}, in bytes {@code [vs, ve)} (plus value {@code w} of {@code b} when
     * equal), consolidated, under the key in bytes {@code [ks, ke)} of {@code keyBytes}.
     */
    private int emit(byte[] keyBytes, int ks, int ke, Batch a, int v, int vs, int ve, Batch b, int w) {
        int n = 0;
        n = gather(a, v, n);
        if (b != null) {
            n = gather(b, w, n);
        }
        if (n > 1) {
            sortByTime(n);
        }
        boolean valWritten = false;
        int i = 0;
        while (i < n) {
            long t = scratchTimes[i];
            long sum = 0;
            while (i < n && scratchTimes[i] == t) {
                sum += scratchDiffs[i++];
            }
            if (sum != 0) {
                out.push(keyBytes, ks, ke, !keyWritten, a.vals.bytes, vs, ve, !valWritten, t, sum);
                keyWritten = true;
                valWritten = true;
            }
        }
        return n;
    }

    private int gather(Batch b, int v, int n) {
        int s = b.valUpdStart.at(v);
        int e = b.valUpdStart.at(v + 1);
        if (n + e - s > scratchTimes.length) {
            scratchTimes = Arrays.copyOf(scratchTimes, Math.max(2 * scratchTimes.length, n + e - s));
            scratchDiffs = Arrays.copyOf(scratchDiffs, scratchTimes.length);
        }
        for (int u = s; u < e; u++) {
            scratchTimes[n] = Math.max(b.time(u), floor);
            scratchDiffs[n] = b.diff(u);
            n++;
        }
        return n;
    }

    private void sortByTime(int n) {
        for (int i = 1; i < n; i++) {
            long t = scratchTimes[i];
            long d = scratchDiffs[i];
            int j = i - 1;
            while (j >= 0 && scratchTimes[j] > t) {
                scratchTimes[j + 1] = scratchTimes[j];
                scratchDiffs[j + 1] = scratchDiffs[j];
                j--;
            }
            scratchTimes[j + 1] = t;
            scratchDiffs[j + 1] = d;
        }
    }
}
