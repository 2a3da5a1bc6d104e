package dev.tandem.sharing;

import dev.tandem.time.Frontier;

/**
 * The state of one shared collection as emitted on its publication sink: not yet published (a
 * placeholder some reader created), published and sealed up to {@code upper}, or dropped.
 */
public record Publication(String id, State state, SharedArrangement arrangement, Frontier upper) {

    public enum State { PLACEHOLDER, PUBLISHED, DROPPED }

    public boolean published() {
        return state == State.PUBLISHED;
    }

    public boolean dropped() {
        return state == State.DROPPED;
    }

    /** Whether a read at {@code t} can be answered: published and sealed past {@code t}. */
    public boolean readableAt(long t) {
        return published() && upper.isPast(t);
    }
}
