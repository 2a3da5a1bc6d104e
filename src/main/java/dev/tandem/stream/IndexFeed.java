package dev.tandem.stream;

import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import java.util.List;
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
 */
final class IndexFeed {

    private final Scheduler scheduler;
    private final List<StreamSubscription> members = new CopyOnWriteArrayList<>();
    private final AtomicReference<Publication> pending = new AtomicReference<>();
    private final AtomicInteger wip = new AtomicInteger();
    private volatile Publication last;
    private final Disposable publications;

    /** Follows {@code indexId}'s publications in {@code registry}; {@code onError} hears of a failed feed. */
    IndexFeed(String indexId, ArrangementSharingRegistry registry, Scheduler scheduler, Consumer<Throwable> onError) {
        this.scheduler = scheduler;
        this.publications = registry.publications(indexId).subscribe(this::offer, onError);
    }

    void join(StreamSubscription s) {
        members.add(s);
        Publication p = last;
        if (p != null) {
            pending.compareAndSet(null, p);
        }
        schedule();
    }

    /** Removes {@code s}; true when the feed has no member left. */
    boolean leave(StreamSubscription s) {
        members.remove(s);
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

    private void drain() {
        int missed = 1;
        while (true) {
            Publication p = pending.getAndSet(null);
            if (p != null) {
                SnapshotReads reads = p.published() ? new SnapshotReads(p.arrangement()) : null;
                for (StreamSubscription s : members) {
                    s.onPublication(p, reads);
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }
}
