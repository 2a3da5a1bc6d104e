package dev.tandem.controller;

import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/** The read holds the controller keeps on one collection: read times of in-flight reads. */
final class Holds {

    private final TreeMap<Long, Long> byId = new TreeMap<>();
    private final TreeMap<Long, Integer> byTime = new TreeMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** Holds {@code time}; returns the hold's id for {@link #remove}. */
    synchronized long add(long time) {
        long id = ids.incrementAndGet();
        byId.put(id, time);
        byTime.merge(time, 1, Integer::sum);
        return id;
    }

    synchronized void remove(long id) {
        Long time = byId.remove(id);
        if (time != null) {
            byTime.computeIfPresent(time, (t, n) -> n == 1 ? null : n - 1);
        }
    }

    /** The earliest held time, or {@code Long.MAX_VALUE} when nothing is held. */
    synchronized long min() {
        return byTime.isEmpty() ? Long.MAX_VALUE : byTime.firstKey();
    }

    synchronized int size() {
        return byId.size();
    }
}
