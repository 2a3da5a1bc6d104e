package dev.tandem.stream;

import dev.tandem.row.Row;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The publications of one index, followed once for all its change streams. Each publication is
 * handed to every member in turn, on the reading runtime's scheduler, with one {@link SnapshotReads} they
 * share; publications that arrive while one is being handled collapse into the latest (a stream reads
 * changes by time range from the current snapshot, so skipping a publication loses nothing).
 *
 * <p>Handling is serialized: at most one thread works on a feed at a time, so a member's producing
 * state needs no lock. Publishers (maintenance's threads) only store the publication and schedule the
 * work. A member that joins is handed the current publication at once, not only the next one.
 *
 * <p><b>Only the members a publication concerns.</b> A member watching keys, already started, is handed a
 * publication only if one of its keys changed since the previous one (the feed reads the keys of the
 * updates in between once, from the shared reads, and finds the streams watching them in an index from
 * key to streams, rebuilt when members come or go or a stream starts); the others are only told the new upper, and catch up
 * on their next turn, reading from where they stopped (their holds keep that range exact). So a write to
 * one key costs the streams watching it, not every stream of the index. Every member is handed the
 * publication when the feed has not seen one before, when the index holds errors, and at least once a
 * progress interval, so progress messages, and with them the holds, keep moving.
 */
final class IndexFeed {

    private final Scheduler scheduler;
    private final long progressIntervalMillis;
    // Drain state (one thread at a time): the upper of the last publication handled, and of the last handed to all.
    private long lastUpper = Long.MIN_VALUE;
    private long lastAllUpper = Long.MIN_VALUE;
    /** The upper of the publication handled before the current one: the changed keys are those at times from it on. */
    private long changedFrom = Long.MIN_VALUE;
    /** The keyed, started members by watched key, and the members handed every publication (unkeyed or not started). */
    private Map<Row, List<StreamSubscription>> watchers = Map.of();
    private List<StreamSubscription> always = List.of();
    /** The membership the index was built for, and whether a member started since. */
    private int indexed = -1;
    private boolean stale = true;
    /** Counts publications handed, so a member watching several changed keys is handed one once. */
    private long handing;
    private final AtomicInteger membership = new AtomicInteger();
    private final List<StreamSubscription> members = new CopyOnWriteArrayList<>();
    private final AtomicReference<Publication> pending = new AtomicReference<>();
    private final AtomicInteger wip = new AtomicInteger();
    private volatile Publication last;
    private final Disposable publications;

    /** Follows {@code indexId}'s publications in {@code registry}; {@code onError} hears of a failed feed. */
    IndexFeed(String indexId, ArrangementSharingRegistry registry, Scheduler scheduler, long progressIntervalMillis,
            Consumer<Throwable> onError) {
        this.scheduler = scheduler;
        this.progressIntervalMillis = progressIntervalMillis;
        this.publications = registry.publications(indexId).subscribe(this::offer, onError);
    }

    void join(StreamSubscription s) {
        members.add(s);
        membership.incrementAndGet();
        Publication p = last;
        if (p != null) {
            pending.compareAndSet(null, p);
        }
        schedule();
    }

    /** Removes {@code s}; true when the feed has no member left. */
    boolean leave(StreamSubscription s) {
        members.remove(s);
        membership.incrementAndGet();
        return members.isEmpty();
    }

    List<StreamSubscription> members() {
        return members;
    }

    void close() {
        publications.dispose();
    }

    private void offer(Publication p) {
        last = p;
        pending.set(p);
        schedule();
    }

    private void schedule() {
        if (wip.getAndIncrement() == 0) {
            try {
                scheduler.schedule(this::drain);
            } catch (RejectedExecutionException e) {
                // The runtime is shutting down; the server ends every stream itself.
                wip.set(0);
            }
        }
    }

    private void handle(Publication p) {
        SnapshotReads reads = p.published() ? new SnapshotReads(p.arrangement()) : null;
        Set<Row> changed = reads == null ? null : changedKeys(reads);
        long upper = reads == null || reads.snapshot().upper().isEmpty() ? Long.MIN_VALUE : reads.snapshot().upper().time();
        handing++;
        if (changed == null) {
            for (StreamSubscription s : members) {
                hand(s, p, reads);
            }
            return;
        }
        int m = membership.get();
        if (stale || m != indexed) {
            index();
            indexed = m;
        }
        for (StreamSubscription s : always) {
            hand(s, p, reads);
        }
        for (Row key : changed) {
            for (StreamSubscription s : watchers.getOrDefault(key, List.of())) {
                hand(s, p, reads);
            }
        }
        for (StreamSubscription s : members) {
            if (s.handedAt != handing) {
                s.passedOver(changedFrom, upper);
            }
        }
    }

    private void hand(StreamSubscription s, Publication p, SnapshotReads reads) {
        if (s.handedAt == handing) {
            return;
        }
        s.handedAt = handing;
        List<Row> before = s.watchedKeys();
        s.onPublication(p, reads);
        if (before == null && s.watchedKeys() != null) {
            stale = true; // it started: from now on it is found by its keys
        }
    }

    private void index() {
        Map<Row, List<StreamSubscription>> byKey = new HashMap<>();
        List<StreamSubscription> all = new ArrayList<>();
        for (StreamSubscription s : members) {
            List<Row> keys = s.watchedKeys();
            if (keys == null) {
                all.add(s);
            } else {
                for (Row key : keys) {
                    byKey.computeIfAbsent(key, k -> new ArrayList<>(2)).add(s);
                }
            }
        }
        watchers = byKey;
        always = all;
        stale = false;
    }

    /**
     * The keys of the updates since the last publication handled, or null when every member is to be handed
     * this one (see the class comment).
     */
    private Set<Row> changedKeys(SnapshotReads reads) {
        SharedArrangement.Snapshot snap = reads.snapshot();
        if (snap.upper().isEmpty()) {
            return null;
        }
        long u = snap.upper().time();
        long previous = lastUpper;
        lastUpper = u;
        changedFrom = previous;
        boolean errors = snap.errs().stream().anyMatch(s -> s.records() != 0);
        if (previous == Long.MIN_VALUE || errors || u < previous || u - lastAllUpper >= progressIntervalMillis
                || snap.since().compareTo(Frontier.at(previous - 1)) > 0) {
            lastAllUpper = u;
            return null;
        }
        if (u == previous) {
            return Set.of(); // nothing new (compaction, say): only streams not yet started or of the whole index
        }
        Set<Row> keys = new HashSet<>();
        for (SnapshotReads.Update update : reads.updates(previous - 1, u)) {
            keys.add(update.key());
        }
        return keys;
    }

    private void drain() {
        int missed = 1;
        while (true) {
            Publication p = pending.getAndSet(null);
            if (p != null) {
                handle(p);
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }
}
