package dev.tandem.controller;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The read holds the controller keeps on one collection: read times of in-flight reads. Lock-free, so
 * a read taking or dropping its hold never waits behind another thread (a point read on an event loop
 * must not queue behind a descheduled compaction or another read); {@link #min()} scans the holds, of
 * which there are as many as reads in flight.
 */
final class Holds {

    private final ConcurrentHashMap<Long, Long> timeById = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** Holds {@code time}; returns the hold's id for {@link #remove}. */
    long add(long time) {
        long id = ids.incrementAndGet();
        timeById.put(id, time);
        return id;
    }

    void remove(long id) {
        timeById.remove(id);
    }

    /** The earliest held time, or {@code Long.MAX_VALUE} when nothing is held. */
    long min() {
        long min = Long.MAX_VALUE;
        for (long t : timeById.values()) {
            min = Math.min(min, t);
        }
        return min;
    }
}
