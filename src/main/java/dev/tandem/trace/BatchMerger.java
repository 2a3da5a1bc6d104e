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
    /** Where the merge is in the older and in the newer batch. */
    private final Side a;
    private final Side b;
    /** Whether the key being merged has been written to the output yet. */
    private boolean keyWritten;
    private long[] scratchTimes = new long[16];
    private long[] scratchDiffs = new long[16];

    /**
     * One input's place: its next key and value, and where their bytes start, each the end of the row
     * before, so that a merge, reading rows in order, never computes a row's start from the batch's lengths.
     */
    private static final class Side {
        final Batch batch;
        int key;
        int val;
        /** Where the next value's bytes start. */
        int valStart;
        /** Where the next key's bytes start, when the keys have bytes of their own (see {@link #keyStart}). */
        private int ownKeyStart;

        Side(Batch batch) {
            this.batch = batch;
            this.val = batch.keyValStart.at(0);
        }

        boolean done() {
            return key >= batch.keyCount();
        }

        /** Where the next key starts: where its first value does, for prefix keys. */
        int keyStart() {
            return batch.keys.arePrefixes() ? valStart : ownKeyStart;
        }

        int valEnd() {
            return batch.vals.end(val, valStart);
        }

        /** Moves past the next value, which ends at {@code end}. */
        void passVal(int end) {
            val++;
            valStart = end;
        }

        /** Moves past the next key, which ends at {@code end}, once its values are passed. */
        void passKey(int end) {
            key++;
            ownKeyStart = end;
        }
    }

    BatchMerger(Batch older, Batch newer, Frontier since) {
        this.older = older;
        this.newer = newer;
        this.since = since;
        this.floor = since.isEmpty() ? Long.MAX_VALUE : since.time();
        this.out = new BatchWriter(
                older.keys.rowBytes() + newer.keys.rowBytes(), older.keyCount() + newer.keyCount(),
                older.vals.rowBytes() + newer.vals.rowBytes(), older.vals.count() + newer.vals.count(),
                older.updateCount() + newer.updateCount(), true);
        a = new Side(older);
        b = new Side(newer);
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
        return a.done() && b.done();
    }

    /** Merges until about {@code fuel} updates are consumed or the merge is done; returns the fuel left. */
    long work(long fuel) {
        while (fuel > 0 && !done()) {
            int c;
            if (a.done()) {
                c = 1;
            } else if (b.done()) {
                c = -1;
            } else {
                c = older.keys.compare(a.key, a.keyStart(), newer.keys, b.key, b.keyStart());
            }
            if (c < 0) {
                fuel -= copyKey(a);
            } else if (c > 0) {
                fuel -= copyKey(b);
            } else {
                fuel -= mergeKey();
            }
        }
        return fuel;
    }

    Batch finish() {
        return out.finish(older.lower(), newer.upper(), since);
    }

    /** Copies the next key of {@code s}, present in its batch only, with its values. */
    private int copyKey(Side s) {
        Batch batch = s.batch;
        int ks = s.keyStart();
        int ke = batch.keys.end(s.key, ks);
        int vEnd = batch.keyValStart.at(s.key + 1);
        int consumed = 0;
        int u = batch.valUpdStart.at(s.val);
        if (vEnd == s.val + 1 && batch.valUpdStart.at(s.val + 1) == u + 1) {
            // one value with one update, the common case: nothing to consolidate
            int ve = s.valEnd();
            out.push(batch.keys.bytes, ks, ke, true, batch.vals.bytes, s.valStart, ve, true, Math.max(batch.time(u), floor),
                    batch.diff(u));
            s.passVal(ve);
            consumed = 1;
        } else {
            keyWritten = false;
            while (s.val < vEnd) {
                int ve = s.valEnd();
                consumed += emit(batch.keys.bytes, ks, ke, batch, s.val, s.valStart, ve, null, -1);
                s.passVal(ve);
            }
        }
        s.passKey(ke);
        return consumed;
    }

    /** Merges the next keys of both batches, which are equal, and their values. */
    private int mergeKey() {
        keyWritten = false;
        int consumed = 0;
        int ks = a.keyStart();
        int ke = older.keys.end(a.key, ks);
        int keB = newer.keys.end(b.key, b.keyStart());
        int endA = older.keyValStart.at(a.key + 1);
        int endB = newer.keyValStart.at(b.key + 1);
        while (a.val < endA || b.val < endB) {
            int c;
            if (a.val >= endA) {
                c = 1;
            } else if (b.val >= endB) {
                c = -1;
            } else {
                c = older.vals.compare(a.val, a.valStart, newer.vals, b.val, b.valStart);
            }
            if (c <= 0) {
                int ve = a.valEnd();
                consumed += emit(older.keys.bytes, ks, ke, older, a.val, a.valStart, ve, c == 0 ? newer : null,
                        c == 0 ? b.val : -1);
                if (c == 0) {
                    b.passVal(b.valEnd());
                }
                a.passVal(ve);
            } else {
                int ve = b.valEnd();
                consumed += emit(older.keys.bytes, ks, ke, newer, b.val, b.valStart, ve, null, -1);
                b.passVal(ve);
            }
        }
        a.passKey(ke);
        b.passKey(keB);
        return consumed;
    }

    /**
     * Emits value {@code v} of {@code first}, in bytes {@code [vs, ve)} (plus value {@code w} of {@code other}
     * when equal), consolidated, under the key in bytes {@code [ks, ke)} of {@code keyBytes}.
     */
    private int emit(byte[] keyBytes, int ks, int ke, Batch first, int v, int vs, int ve, Batch other, int w) {
        int n = 0;
        n = gather(first, v, n);
        if (other != null) {
            n = gather(other, w, n);
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
                out.push(keyBytes, ks, ke, !keyWritten, first.vals.bytes, vs, ve, !valWritten, t, sum);
                keyWritten = true;
                valWritten = true;
            }
        }
        return n;
    }

    private int gather(Batch batch, int v, int n) {
        int s = batch.valUpdStart.at(v);
        int e = batch.valUpdStart.at(v + 1);
        if (n + e - s > scratchTimes.length) {
            scratchTimes = Arrays.copyOf(scratchTimes, Math.max(2 * scratchTimes.length, n + e - s));
            scratchDiffs = Arrays.copyOf(scratchDiffs, scratchTimes.length);
        }
        for (int u = s; u < e; u++) {
            scratchTimes[n] = Math.max(batch.time(u), floor);
            scratchDiffs[n] = batch.diff(u);
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
