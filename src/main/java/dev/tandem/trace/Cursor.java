package dev.tandem.trace;

import dev.tandem.row.Row;

/**
 * Walks the keys of a trace (or one batch) in order and, for the current key, its values: either
 * accumulated at a time or as raw updates. A cursor belongs to one thread.
 */
public interface Cursor {

    /** Receives a value and its multiplicity accumulated at the requested time (never zero). */
    @FunctionalInterface
    interface ValDiff {
        void accept(Row val, long diff);
    }

    /** Receives one update of the current key. */
    @FunctionalInterface
    interface ValUpdate {
        void accept(Row val, long time, long diff);
    }

    boolean keyValid();

    /** The current key; only while {@link #keyValid()}. */
    Row key();

    void stepKey();

    /** Moves to the first key {@code >= key}. */
    void seekKey(Row key);

    /**
     * Calls {@code out} for each value of the current key, in value order, with the sum of the diffs of
     * its updates at times {@code <= t}, skipping values whose sum is zero.
     */
    void accumulate(long t, ValDiff out);

    /** Calls {@code out} for every update of the current key (values in no particular order). */
    void forEachUpdate(ValUpdate out);
}
