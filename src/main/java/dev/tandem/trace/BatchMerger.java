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
                c = older.keys.compare(keyA, newer.keys, keyB);
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
        int vEnd = b.keyValStart.at(key + 1);
        int v = isOlder ? valA : valB;
        if (vEnd == v + 1) {
            int u = b.valUpdStart.at(v);
            if (b.valUpdStart.at(v + 1) == u + 1) {
                // one value with one update, the common case: nothing to consolidate
                int ks = b.keys.start(key);
                int vs = b.vals.start(v);
                out.push(b.keys.bytes, ks, b.keys.end(key, ks), true, b.vals.bytes, vs, b.vals.end(v, vs), true,
                        Math.max(b.time(u), floor), b.diff(u));
                if (isOlder) {
                    valA = vEnd;
                } else {
                    valB = vEnd;
                }
                return 1;
            }
        }
        keyWritten = false;
        int consumed = 0;
        for (; v < vEnd; v++) {
            consumed += emit(b, key, b, v, null, -1);
        }
        if (isOlder) {
            valA = v;
        } else {
            valB = v;
        }
        return consumed;
    }

    private int mergeKey() {
        keyWritten = false;
        int consumed = 0;
        int endA = older.keyValStart.at(keyA + 1);
        int endB = newer.keyValStart.at(keyB + 1);
        while (valA < endA || valB < endB) {
            int c;
            if (valA >= endA) {
                c = 1;
            } else if (valB >= endB) {
                c = -1;
            } else {
                c = older.vals.compare(valA, newer.vals, valB);
            }
            if (c < 0) {
                consumed += emit(older, keyA, older, valA++, null, -1);
            } else if (c > 0) {
                consumed += emit(newer, keyB, newer, valB++, null, -1);
            } else {
                consumed += emit(older, keyA, older, valA++, newer, valB++);
            }
        }
        return consumed;
    }

    /** Emits value {@code v} of {@code a} (plus value {@code w} of {@code b} when equal), consolidated. */
    private int emit(Batch keyBatch, int key, Batch a, int v, Batch b, int w) {
        int n = 0;
        n = gather(a, v, n);
        if (b != null) {
            n = gather(b, w, n);
        }
        if (n > 1) {
            sortByTime(n);
        }
        int start = keyBatch.keys.start(key);
        int end = keyBatch.keys.end(key, start);
        int vs = a.vals.start(v);
        int ve = a.vals.end(v, vs);
        boolean valWritten = false;
        int i = 0;
        while (i < n) {
            long t = scratchTimes[i];
            long sum = 0;
            while (i < n && scratchTimes[i] == t) {
                sum += scratchDiffs[i++];
            }
            if (sum != 0) {
                out.push(keyBatch.keys.bytes, start, end, !keyWritten, a.vals.bytes, vs, ve, !valWritten, t, sum);
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
