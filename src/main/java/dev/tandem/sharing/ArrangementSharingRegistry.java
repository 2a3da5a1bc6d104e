package dev.tandem.sharing;

import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The in-process registry through which one runtime publishes arrangements and another reads them,
 * zero-copy.
 *
 * <h2>Publication</h2>
 * The publisher {@link #publish}es an index's {@code oks} and {@code errs} traces under its id, then
 * {@link #seal}s each new write frontier. A reader may arrive first: it creates a placeholder entry,
 * which the publisher later fills in place. {@link #drop} marks the entry dropped for good (ids are
 * never reused), failing every waiting reader.
 *
 * <h2>Wake-ups</h2>
 * Each entry has a publication sink that replays its latest {@link Publication} to every new
 * subscriber and then emits each change. A reader subscribes and takes the first publication that
 * satisfies it, so there is no window between checking the state and waiting in which a change
 * could be missed, and nobody polls. State changes and emissions happen under the entry's monitor,
 * so emissions are serialized as Reactor requires; a failed emission is counted and is a bug.
 *
 * <h2>Standing holds (invariant I1c)</h2>
 * In two-runtime mode the reading runtime must never find a shared trace compacted past what it has
 * applied. A publisher that shares with the other runtime asks {@link #publish} for a standing hold: it
 * takes a hold on the arrangement for the reading runtime at the publication's {@code since} (or at a frontier the reader
 * already applied, if its {@code AllowCompaction} arrived first); the reader moves it with
 * {@link #advanceStandingHold} as it applies each {@code AllowCompaction}, and the empty frontier
 * releases it. The publisher compacts to the meet of its own hold and the standing hold.
 */
public final class ArrangementSharingRegistry {

    /** Holder name of standing holds, as shown in introspection. */
    public static final String STANDING_HOLD = "standing hold (interactive)";

    private final Map<String, Entry> entries = new ConcurrentHashMap<>();
    private final AtomicLong emitFailures = new AtomicLong();

    private Entry entry(String id) {
        return entries.computeIfAbsent(id, Entry::new);
    }

    /**
     * Publishes {@code arrangement} under its id, filling a placeholder if a reader created one; with
     * {@code standingHold}, the reading runtime's standing hold is taken at the same moment.
     */
    public void publish(SharedArrangement arrangement, Frontier upper, boolean standingHold) {
        Entry e = entry(arrangement.id());
        synchronized (e) {
            if (e.state != Publication.State.PLACEHOLDER) {
                throw new IllegalStateException("collection " + arrangement.id() + " is already " + e.state);
            }
            e.arrangement = arrangement;
            e.upper = upper;
            e.state = Publication.State.PUBLISHED;
            if (standingHold) {
                Frontier at = arrangement.snapshot().since().join(e.appliedByReader);
                e.standingHold = e.appliedByReader.isEmpty() ? null : arrangement.acquireHold(STANDING_HOLD, at);
            }
            e.emit();
        }
    }

    /** Records that the publisher's write frontier for {@code id} advanced to {@code upper}. */
    public void seal(String id, Frontier upper) {
        Entry e = entries.get(id);
        if (e == null) {
            return;
        }
        synchronized (e) {
            if (e.state == Publication.State.PUBLISHED && upper.compareTo(e.upper) > 0) {
                e.upper = upper;
                e.emit();
            }
        }
    }

    /** Drops {@code id}: waiting and future readers fail; the standing hold is released. */
    public void drop(String id) {
        Entry e = entry(id);
        synchronized (e) {
            if (e.state == Publication.State.DROPPED) {
                return;
            }
            e.state = Publication.State.DROPPED;
            e.arrangement = null;
            if (e.standingHold != null) {
                e.standingHold.release();
                e.standingHold = null;
            }
            e.emit();
            // The replay sink keeps the value before its latest as well (reactor-core #3340): here the last
            // published one, and with it the index's traces, for as long as the entry lives (ids are never
            // reused, so forever). The dropped state emitted again takes its place; readers see it once
            // (publications() drops repeats, a waiter takes the first).
            e.emit();
        }
    }

    /**
     * Applies a reader-side {@code AllowCompaction}: the standing hold on {@code id} moves to
     * {@code frontier}; the empty frontier releases it. Ids the registry never saw are remembered as
     * placeholders so a later publication starts its hold no earlier than what was applied.
     */
    public void advanceStandingHold(String id, Frontier frontier) {
        Entry e = entry(id);
        synchronized (e) {
            e.appliedByReader = e.appliedByReader.join(frontier);
            if (e.standingHold != null) {
                if (frontier.isEmpty()) {
                    e.standingHold.release();
                    e.standingHold = null;
                } else {
                    e.standingHold.downgrade(frontier);
                }
            }
        }
    }

    /** The frontier of the standing hold on {@code id}, or null when there is none. */
    public Frontier standingHold(String id) {
        Entry e = entries.get(id);
        if (e == null) {
            return null;
        }
        synchronized (e) {
            return e.standingHold == null ? null : e.standingHold.frontier();
        }
    }

    /** Every publication of {@code id}: the current one first, then each change. */
    public reactor.core.publisher.Flux<Publication> publications(String id) {
        return reactor.core.publisher.Flux.defer(() -> {
            Entry e = entry(id);
            return e.sink.asFlux().startWith(e.current()).distinctUntilChanged();
        });
    }

    /** Waits until {@code id} is published; fails if it is dropped first. */
    public Mono<SharedArrangement> awaitPublished(String id) {
        return await(id, p -> p.published() || p.dropped());
    }

    /** Waits until {@code id} is published and sealed past {@code t}; fails if it is dropped first. */
    public Mono<SharedArrangement> awaitReadable(String id, long t) {
        return await(id, p -> p.readableAt(t) || p.dropped());
    }

    private Mono<SharedArrangement> await(String id, Predicate<Publication> ready) {
        return Mono.defer(() -> {
            Entry e = entry(id);
            Publication now = e.current();
            if (ready.test(now)) {
                return resolve(now);
            }
            return e.sink.asFlux().filter(ready).next().flatMap(ArrangementSharingRegistry::resolve);
        });
    }

    private static Mono<SharedArrangement> resolve(Publication p) {
        return p.dropped() ? Mono.error(new SharedCollectionDroppedException(p.id())) : Mono.just(p.arrangement());
    }

    /** The current publication of {@code id}, without waiting (a placeholder if unknown). */
    public Publication current(String id) {
        Entry e = entries.get(id);
        return e == null ? new Publication(id, Publication.State.PLACEHOLDER, null, Frontier.MIN) : e.current();
    }

    /** The published, not dropped, arrangements. */
    public List<SharedArrangement> published() {
        return entries.values().stream().map(Entry::current).filter(Publication::published).map(Publication::arrangement).toList();
    }

    /** Emissions that failed; any non-zero value is a bug. */
    public long emitFailures() {
        return emitFailures.get();
    }

    /** Number of readers currently subscribed to {@code id}'s sink (for tests of wake-ups). */
    public int waiters(String id) {
        Entry e = entries.get(id);
        return e == null ? 0 : e.sink.currentSubscriberCount();
    }

    private final class Entry {
        final String id;
        final Sinks.Many<Publication> sink = Sinks.many().replay().latest();
        Publication.State state = Publication.State.PLACEHOLDER;
        SharedArrangement arrangement;
        Frontier upper = Frontier.MIN;
        Frontier appliedByReader = Frontier.MIN;
        ReadHold standingHold;
        volatile Publication latest;

        Entry(String id) {
            this.id = id;
            latest = new Publication(id, state, null, upper);
        }

        Publication current() {
            return latest;
        }

        /** Emits the current state; callers hold the entry's monitor. */
        void emit() {
            latest = new Publication(id, state, arrangement, upper);
            Sinks.EmitResult r = sink.tryEmitNext(latest);
            if (r.isFailure()) {
                emitFailures.incrementAndGet();
            }
        }
    }
}
