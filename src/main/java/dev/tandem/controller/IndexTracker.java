package dev.tandem.controller;

import dev.tandem.time.Frontier;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.BufferOverflowStrategy;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * Tracks the running indexes (and introspection collections and change-stream dataflows) by id: their
 * {@link IndexState}, advanced by compute's frontier reports, and the index events published from them.
 *
 * <p>Thread-safe: states live in a concurrent map; a state's time fields are volatile and advanced only
 * by the compute response thread. Callers that must add or remove a state atomically with choosing read
 * times do so under {@link ReadPolicy}'s lock. Events go out under the sink's monitor.
 */
final class IndexTracker {

    private final Map<String, IndexState> states = new ConcurrentHashMap<>();
    private final AtomicLong droppedEvents = new AtomicLong();
    private final Sinks.Many<ControllerEvent> events = Sinks.many().multicast().directBestEffort();

    IndexState get(String id) {
        return states.get(id);
    }

    boolean running(String id) {
        return states.containsKey(id);
    }

    void track(IndexState state) {
        states.put(state.index.id(), state);
    }

    void untrack(String id) {
        states.remove(id);
    }

    Collection<IndexState> all() {
        return states.values();
    }

    /** Whether each of {@code ids} that is still tracked has hydrated. */
    boolean hydrated(List<String> ids) {
        for (String id : ids) {
            IndexState s = states.get(id);
            if (s != null && !s.hydrated) {
                return false;
            }
        }
        return true;
    }

    /**
     * Applies a frontier report to {@code s}: its upper only advances; at the first report of an
     * introspection collection its compaction frontier starts there (through {@code policy}, under its
     * lock), and readers waiting for that report go ahead.
     */
    void advance(IndexState s, Frontier writeFrontier, ReadPolicy policy) {
        if (writeFrontier.compareTo(s.upper) > 0) {
            s.upper = writeFrontier;
        }
        if (!s.reported) {
            if (s.introspection && !writeFrontier.isEmpty()) {
                // The first upper reported is at or after the logging dataflow's as_of, where
                // its compaction frontier starts: no read may choose an earlier time.
                policy.raise(s, writeFrontier);
            }
            s.reported = true;
            s.firstFrontier.tryEmitEmpty();
        }
        s.hydrated = s.upper.compareTo(Frontier.at(s.asOf)) > 0;
    }

    /**
     * Index events. Each subscriber gets its own bounded buffer (oldest dropped first when it falls far
     * behind), so the shared sink never skips a subscriber that is merely between requests.
     */
    Flux<ControllerEvent> events() {
        return events.asFlux().onBackpressureBuffer(4096, dropped -> droppedEvents.incrementAndGet(), BufferOverflowStrategy.DROP_OLDEST);
    }

    /**
     * Emits an event to the subscribers that keep up; events are advisory (the next frontier supersedes
     * the last), so one a slow subscriber cannot take is dropped for it and counted.
     */
    void publish(ControllerEvent event) {
        synchronized (events) {
            Sinks.EmitResult r = events.tryEmitNext(event);
            if (r.isFailure() && r != Sinks.EmitResult.FAIL_ZERO_SUBSCRIBER) {
                droppedEvents.incrementAndGet();
            }
        }
    }

    long droppedEvents() {
        return droppedEvents.get();
    }

    void close() {
        events.tryEmitComplete();
    }
}
