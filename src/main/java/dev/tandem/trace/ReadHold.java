package dev.tandem.trace;

import dev.tandem.time.Frontier;

/**
 * A promise that a trace's compaction frontier will not pass {@link #frontier()}. The frontier only
 * moves forward; releasing the hold lets the trace compact past it.
 */
public interface ReadHold extends AutoCloseable {

    /** Who holds the read (for introspection): a policy, a peek, a dataflow, a standing hold. */
    String holder();

    Frontier frontier();

    /** Moves the hold forward to {@code frontier}; a frontier behind the current one is ignored. */
    void downgrade(Frontier frontier);

    /** Releases the hold; further calls do nothing. */
    void release();

    @Override
    default void close() {
        release();
    }
}
