package dev.tandem.storage;

import java.util.function.LongSupplier;

/**
 * Hands out write timestamps: strictly increasing, equal to the clock's milliseconds when the clock
 * moves forward, and never going back when it steps back. Not thread-safe; the storage calls it under
 * its state lock.
 */
final class TimestampOracle {

    private final LongSupplier clock;
    private long last = -1;

    TimestampOracle(LongSupplier clock) {
        this.clock = clock;
    }

    /** A new write timestamp, greater than every earlier one and at least {@code upper}. */
    long next(long upper) {
        long t = Math.max(Math.max(clock.getAsLong(), last + 1), upper);
        last = t;
        return t;
    }

    /** The frontier an idle tick may advance to: later timestamps are at least this, given {@link #next}. */
    long tickFrontier(long upper) {
        return Math.max(Math.max(clock.getAsLong(), last + 1), upper);
    }

    /** Notes a timestamp handed out before a restart. */
    void observe(long time) {
        last = Math.max(last, time);
    }

    /** The latest timestamp handed out, or -1. */
    long last() {
        return last;
    }
}
