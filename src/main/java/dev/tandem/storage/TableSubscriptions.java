package dev.tandem.storage;

import dev.tandem.time.Frontier;
import dev.tandem.trace.TraceSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Subscriptions to tables: primes each subscriber with its snapshot and publishes every applied write
 * and every move of the upper to it. A subscriber registers under the applied tables' lock, the same
 * lock under which writes are applied and published, so it sees every write exactly once: in its
 * snapshot if applied before it registered, as an update after. The snapshot is taken under the lock
 * as an immutable trace snapshot but read outside it; updates applied meanwhile are held back for the
 * subscriber and sent after its snapshot. Events go into a buffering unicast sink; an emission that
 * fails (the subscriber cancelled) removes the subscriber and is counted.
 *
 * <p>Threading: every method but {@link #subscribe} and {@link #tick} is called with
 * {@link AppliedTables#lock} held (by the commit thread, or by {@link #close}); {@code subscribe}
 * runs on the subscriber's thread and {@code tick} on the storage's scheduler, both taking the lock.
 */
final class TableSubscriptions {

    /** How often subscribers hear of an upper that only the clock moved. */
    private static final long IDLE_REPORT_MILLIS = 100;

    private final AppliedTables applied;
    private final LongSupplier clockMillis;
    /** The upper last told to subscribers, and when; guarded by the applied tables' lock. */
    private long reportedUpper;
    private long lastReportMillis;
    private final AtomicLong emitFailures = new AtomicLong();

    TableSubscriptions(AppliedTables applied, LongSupplier clockMillis) {
        this.applied = applied;
        this.clockMillis = clockMillis;
    }

    /** Emissions that failed (the subscriber had gone). */
    long emitFailures() {
        return emitFailures.get();
    }

    Flux<TableEvent> subscribe(String id, long asOf) {
        return Flux.defer(() -> {
            synchronized (applied.lock) {
                StoredTable t = applied.tables.get(id);
                if (t == null) {
                    return Flux.error(LogTableStorage.unknownTable(id));
                }
                if (t.since > asOf) {
                    return Flux.error(new IllegalArgumentException("table '" + id + "': the compaction frontier "
                            + Frontier.at(t.since) + " is beyond the read time " + asOf));
                }
                if (applied.closed) {
                    return Flux.error(LogTableStorage.closedError());
                }
                StoredTable.Subscriber s = new StoredTable.Subscriber(asOf);
                t.subscribers.add(s);
                Flux<TableEvent> events = s.sink.asFlux().doOnCancel(() -> {
                    synchronized (applied.lock) {
                        t.subscribers.remove(s);
                    }
                });
                if (applied.upper <= asOf) {
                    return events;
                }
                // Capture the history now; read it outside the lock (a large table takes a while), holding
                // back whatever is applied meanwhile until the snapshot has gone out.
                // The operator chain keeps its source (and so this lambda) for the subscription's lifetime:
                // the lambda lets go of the captured history once read, or the table's old batches would
                // stay alive beside their merges for as long as the subscriber lives.
                AtomicReference<TraceSnapshot> history = new AtomicReference<>(t.history());
                long capturedUpper = applied.upper;
                s.primed = true;
                s.held = new ArrayList<>();
                return Mono.fromRunnable(() -> {
                    TraceSnapshot h = history.getAndSet(null);
                    if (h != null) {
                        finishPriming(t, s, h, capturedUpper);
                    }
                }).thenMany(events);
            }
        });
    }

    /** Sends a subscriber its snapshot from {@code history}, then the events held back while it was read. */
    private void finishPriming(StoredTable t, StoredTable.Subscriber s, TraceSnapshot history, long capturedUpper) {
        StoredTable.Snapshot snap = StoredTable.read(history, s.asOf, t.keyed());
        synchronized (applied.lock) {
            boolean ok = emit(s, new TableEvent.Updates(snap.at()))
                    && (snap.later().isEmpty() || emit(s, new TableEvent.Updates(snap.later())))
                    && emit(s, new TableEvent.Progress(Frontier.at(capturedUpper)));
            for (TableEvent e : s.held) {
                ok = ok && emit(s, e);
            }
            s.held = null;
            if (s.completed) {
                s.sink.tryEmitComplete();
            } else if (!ok) {
                t.subscribers.remove(s);
            }
        }
    }

    /** Ends the subscriptions of a dropped table with the empty frontier. Called under the lock. */
    void dropped(StoredTable t) {
        for (StoredTable.Subscriber s : List.copyOf(t.subscribers)) {
            if (s.held != null) {
                s.held.add(new TableEvent.Progress(Frontier.EMPTY));
                s.completed = true;
                continue;
            }
            if (s.sink.tryEmitNext(new TableEvent.Progress(Frontier.EMPTY)).isFailure()) {
                emitFailures.incrementAndGet();
            }
            s.sink.tryEmitComplete();
        }
        t.subscribers.clear();
    }

    /** Moves the upper to {@code newUpper} (if later) and tells every subscriber. Called under the lock. */
    void advance(long newUpper, Map<StoredTable, PackedUpdates.Builder> fresh) {
        if (newUpper > applied.upper) {
            applied.upper = newUpper;
        }
        long upper = applied.upper;
        boolean moved = upper > reportedUpper;
        reportedUpper = upper;
        lastReportMillis = clockMillis.getAsLong();
        TableEvent.Progress progress = new TableEvent.Progress(Frontier.at(upper));
        for (StoredTable t : applied.tables.values()) {
            if (t.subscribers.isEmpty()) {
                continue;
            }
            PackedUpdates.Builder mine = fresh.get(t);
            TableEvent.Updates updates = mine == null ? null : new TableEvent.Updates(mine.build());
            for (StoredTable.Subscriber s : List.copyOf(t.subscribers)) {
                boolean ok;
                if (!s.primed) {
                    if (upper <= s.asOf) {
                        continue;
                    }
                    ok = prime(t, s);
                } else if (s.held != null) {
                    if (updates != null) {
                        s.held.add(updates);
                    }
                    if (moved) {
                        s.held.add(progress);
                    }
                    ok = true;
                } else {
                    ok = (updates == null || emit(s, updates)) && (!moved || emit(s, progress));
                }
                if (!ok) {
                    t.subscribers.remove(s);
                }
            }
        }
    }

    /** Sends a subscriber its snapshot at {@code asOf}, the applied updates after it, and the upper. */
    private boolean prime(StoredTable t, StoredTable.Subscriber s) {
        StoredTable.Snapshot snap = StoredTable.read(t.history(), s.asOf, t.keyed());
        s.primed = true;
        return emit(s, new TableEvent.Updates(snap.at()))
                && (snap.later().isEmpty() || emit(s, new TableEvent.Updates(snap.later())))
                && emit(s, new TableEvent.Progress(Frontier.at(applied.upper)));
    }

    private boolean emit(StoredTable.Subscriber s, TableEvent event) {
        if (s.sink.tryEmitNext(event).isFailure()) {
            emitFailures.incrementAndGet();
            return false;
        }
        return true;
    }

    /**
     * Advances the upper to the clock when no write is on its way. Subscribers hear of a move that no
     * write made at most every {@link #IDLE_REPORT_MILLIS} of the storage's clock (a write's move is
     * reported at once), so idle tables cost their subscribers a few events a second rather than one per tick.
     */
    void tick() {
        synchronized (applied.lock) {
            if (applied.closed || applied.committing) {
                return;
            }
            long t = applied.oracle.tickFrontier(applied.upper);
            if (t > applied.upper) {
                long now = clockMillis.getAsLong();
                if (now - lastReportMillis >= IDLE_REPORT_MILLIS || now < lastReportMillis) {
                    advance(t, Map.of());
                } else {
                    applied.upper = t;
                }
            }
        }
    }

    /** Completes every subscription and refuses new ones; once the commit thread has stopped. */
    void close() {
        synchronized (applied.lock) {
            applied.closed = true;
            for (StoredTable t : applied.tables.values()) {
                for (StoredTable.Subscriber s : List.copyOf(t.subscribers)) {
                    s.sink.tryEmitComplete();
                }
                t.subscribers.clear();
            }
        }
    }
}
