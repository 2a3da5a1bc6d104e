package dev.tandem.stream;

import dev.tandem.sharing.ArrangementSharingRegistry;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.scheduler.Scheduler;

/**
 * The change-stream server: opens subscriptions to published indexes and serves them from the
 * sharing registry's publications on the reading runtime's threads (the interactive runtime, or the
 * solo runtime's workers), never on maintenance's. Each subscription holds a read hold on its index
 * that follows what its consumer has taken (holder {@code subscription <id>} in
 * {@code tandem_read_holds}).
 */
public final class ChangeStreams implements AutoCloseable {

    private final ArrangementSharingRegistry registry;
    private final Scheduler scheduler;
    private final ChangeStreamLimits limits;
    private final Map<Long, StreamSubscription> active = new ConcurrentHashMap<>();
    private final Map<String, IndexFeed> feeds = new HashMap<>();
    private final AtomicInteger slots = new AtomicInteger();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicLong messagesSent = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong lagged = new AtomicLong();
    private final AtomicLong opened = new AtomicLong();
    private volatile boolean closed;

    /** A server reading {@code registry}'s publications on {@code scheduler}, within {@code limits}. */
    public ChangeStreams(ArrangementSharingRegistry registry, Scheduler scheduler, ChangeStreamLimits limits) {
        this.registry = registry;
        this.scheduler = scheduler;
        this.limits = limits;
    }

    /**
     * Opens a subscription; it starts producing when its messages are subscribed. Refused (and the
     * controller's hold released, a transient dataflow dropped) when the server is at {@code maxSubscriptions},
     * or when an upsert envelope is asked of a stream without a key.
     */
    public ChangeSubscription subscribe(ChangeStreamRequest request) {
        if (closed) {
            refuse(request);
            throw new ChangeStreamException(ChangeStreamException.Kind.CLOSED, "the server is shutting down", null);
        }
        if (request.envelope() == Envelope.UPSERT && request.start().transientDataflow()) {
            refuse(request);
            throw new ChangeStreamException(ChangeStreamException.Kind.INVALID, "envelope upsert needs a key: '" + request.start().indexName()
                    + "' has no index, so its change stream has no key; create an index on it, or use envelope diffs", null);
        }
        if (slots.incrementAndGet() > limits.maxSubscriptions()) {
            slots.decrementAndGet();
            refuse(request);
            throw new ChangeStreamException(ChangeStreamException.Kind.LIMIT, "the server already serves " + limits.maxSubscriptions()
                    + " subscriptions (tandem.subscribe.max-subscriptions); try again later", null);
        }
        StreamSubscription s = new StreamSubscription(ids.incrementAndGet(), request, this);
        active.put(s.id(), s);
        opened.incrementAndGet();
        return s;
    }

    private static void refuse(ChangeStreamRequest request) {
        request.start().release();
        request.start().ended();
    }

    public ChangeStreamLimits limits() {
        return limits;
    }

    ArrangementSharingRegistry registry() {
        return registry;
    }

    Scheduler scheduler() {
        return scheduler;
    }

    /** Adds {@code s} to its index's feed, following the index's publications if nobody did yet. */
    void join(StreamSubscription s) {
        synchronized (feeds) {
            feeds.computeIfAbsent(s.indexId(), id -> new IndexFeed(id, registry, scheduler, limits.progressIntervalMillis(), e -> failFeed(id, e))).join(s);
        }
    }

    /** Takes {@code s} out of its index's feed; the feed stops following the index with its last member. */
    void leave(StreamSubscription s) {
        synchronized (feeds) {
            IndexFeed f = feeds.get(s.indexId());
            if (f != null && f.leave(s)) {
                feeds.remove(s.indexId());
                f.close();
            }
        }
    }

    private void failFeed(String indexId, Throwable e) {
        IndexFeed f;
        synchronized (feeds) {
            f = feeds.get(indexId);
        }
        if (f != null) {
            for (StreamSubscription s : List.copyOf(f.members())) {
                s.feedFailed(e);
            }
        }
    }

    /** Indexes whose publications are followed for change streams now (one feed per index, however many streams). */
    public int feedCount() {
        synchronized (feeds) {
            return feeds.size();
        }
    }

    void ended(StreamSubscription s, ChangeStreamException why) {
        if (active.remove(s.id()) != null) {
            slots.decrementAndGet();
        }
    }

    void countMessage() {
        messagesSent.incrementAndGet();
    }

    void countBytes(long n) {
        bytesSent.addAndGet(n);
    }

    /** The bytes of rows that all subscriptions have waiting for their consumers. */
    private final AtomicLong bufferedBytes = new AtomicLong();

    /** Adds {@code n} (negative: takes away) to the bytes waiting in all subscriptions; answers the new total. */
    long buffer(long n) {
        return bufferedBytes.addAndGet(n);
    }

    /** The bytes of rows that all subscriptions have waiting for their consumers now. */
    public long bufferedBytes() {
        return bufferedBytes.get();
    }

    void countLagged() {
        lagged.incrementAndGet();
    }

    /** Subscriptions open now (including those not yet started). */
    public int activeCount() {
        return active.size();
    }

    /** The open subscriptions, by id. */
    public List<SubscriptionStatus> active() {
        return active.values().stream().map(StreamSubscription::status).sorted(Comparator.comparingLong(SubscriptionStatus::id)).toList();
    }

    public long messagesSent() {
        return messagesSent.get();
    }

    public long bytesSent() {
        return bytesSent.get();
    }

    /** Subscriptions ended because their consumer fell behind. */
    public long laggedTotal() {
        return lagged.get();
    }

    public long openedTotal() {
        return opened.get();
    }

    /** Ends every subscription with {@code server_closing}. */
    @Override
    public void close() {
        closed = true;
        ChangeStreamException e = new ChangeStreamException(ChangeStreamException.Kind.CLOSED, "the server is shutting down", null);
        for (StreamSubscription s : List.copyOf(active.values())) {
            s.close(e);
        }
    }
}
