package dev.tandem.stream;

import dev.tandem.expr.MfpEvaluator;
import dev.tandem.row.Row;
import dev.tandem.sharing.Publication;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * One change stream. A producer turns each publication of the index into messages, on the
 * interactive runtime's threads (one at a time), and queues them; the consumer's demand drains the
 * queue. The read hold follows what the consumer has taken, so compaction proceeds behind it.
 *
 * <h2>Bounds</h2>
 * When a message is produced while more than {@code bufferUpdates} updates or {@code bufferBytes} bytes
 * of rows are already waiting, or all subscriptions together have more than {@code totalBufferBytes}
 * waiting, the subscriber is lagging: the queue is cleared and the stream ends at once with
 * {@code subscription_lagged} and the last timestamp the consumer saw completely. So a subscription
 * never holds more than its buffer plus one message. What waits is what the consumer has not asked for:
 * the surfaces ask only for what their connection can take (the socket's outbound buffer under its
 * high-water mark), so a client that stops reading leaves the changes here, where they are bounded.
 *
 * <h2>Ends</h2>
 * A dropped index, or a failure in the data (an error in the collection, several rows for one key under
 * upsert), ends the stream after what was queued before it is delivered; a lag, a start before the
 * compaction frontier, a server shutdown or a cancel ends it at once. Every end releases the hold and
 * the slot.
 */
final class StreamSubscription implements ChangeSubscription {

    private final long id;
    private final ChangeStreamRequest request;
    private final ChangeStreams server;
    private final long asOf;
    private final Queue<ChangeMessage> queue = new ConcurrentLinkedQueue<>();
    private final AtomicLong buffered = new AtomicLong();
    private final AtomicLong bufferedBytes = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    /** The error ending the stream: at once when {@code immediate}, else after the queue drains. */
    private volatile ChangeStreamException terminal;
    private volatile boolean immediate;
    private volatile FluxSink<ChangeMessage> sink;
    private volatile ReadHold hold;
    /** The last timestamp the consumer has seen completely, or null before anything. */
    private volatile Long delivered;
    private volatile long lastUpper = Long.MIN_VALUE;

    // Producer state: touched only by the (serialized) publication handler.
    private ChangeReader reader;
    private SharedArrangement readerOf;
    private boolean started;
    /** Every change at a time up to this one has been produced (volatile only for {@link #producedThrough}). */
    private volatile long produced;
    private long lastProgress;
    /** The feed's count of the last publication handed to this stream (the feed's drain state). */
    long handedAt = -1;
    /** Publications handed to this stream (not passed over); read by tests. */
    private volatile long handled;

    StreamSubscription(long id, ChangeStreamRequest request, ChangeStreams server) {
        this.id = id;
        this.request = request;
        this.server = server;
        this.asOf = request.start().asOf();
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public void sent(long n) {
        bytes.addAndGet(n);
        server.countBytes(n);
    }

    @Override
    public Flux<ChangeMessage> messages() {
        return Flux.create(s -> {
            if (!subscribed.compareAndSet(false, true)) {
                s.error(new IllegalStateException("a change stream's messages may be subscribed once"));
                return;
            }
            sink = s;
            s.onRequest(n -> drain());
            s.onDispose(() -> end(null));
            server.join(this);
        }, FluxSink.OverflowStrategy.BUFFER);
    }

    /**
     * The keys whose changes concern this stream, or null when every publication does (before it has
     * started, or for a stream of the whole index). Called by the feed's (serialized) handler.
     */
    List<Row> watchedKeys() {
        return !started ? null : request.start().keys();
    }

    long handledPublications() {
        return handled;
    }

    /** The time through which every change has been produced (queued); read by tests. */
    long producedThrough() {
        return produced;
    }

    /**
     * A publication that does not concern this stream: none of its keys changed at the times in
     * {@code [from, upper)}. Its upper is noted (for the lag it reports), and a stream that had produced
     * everything before {@code from} has now produced everything before {@code upper}, with nothing to read:
     * so when every stream is handed a publication (a progress interval), each reads only what changed since
     * the last one, the same range for all, which their shared reads then read once.
     */
    void passedOver(long from, long upper) {
        if (upper == Long.MIN_VALUE) {
            return;
        }
        lastUpper = upper;
        if (started && from != Long.MIN_VALUE && produced == from - 1 && upper > from) {
            produced = upper - 1;
        }
    }

    /**
     * Turns one publication into messages (on an interactive thread, one publication at a time, by the
     * index's {@link IndexFeed}); {@code reads} is the snapshot shared with the index's other streams.
     */
    void onPublication(Publication p, SnapshotReads reads) {
        handled++;
        if (ended.get() || terminal != null) {
            return;
        }
        try {
            if (p.dropped()) {
                endAfterDrain(new ChangeStreamException(ChangeStreamException.Kind.DROPPED, request.start().droppedReason().get(), delivered));
                return;
            }
            if (!p.published()) {
                return;
            }
            SharedArrangement arr = p.arrangement();
            if (hold == null) {
                hold = arr.acquireHold("subscription " + id, Frontier.at(asOf));
                request.start().release();
                if (ended.get()) {
                    hold.release();
                    return;
                }
                if (!hold.frontier().equals(Frontier.at(asOf))) {
                    fail(new ChangeStreamException(ChangeStreamException.Kind.BEFORE_SINCE, "as_of " + asOf
                            + " is before the compaction frontier " + hold.frontier() + " of index '" + request.start().indexName() + "'", null));
                    return;
                }
            }
            if (readerOf != arr) {
                MfpEvaluator mfp = request.start().mfp().isIdentity() ? null : request.start().mfp().bind(arr.schema().types());
                reader = new ChangeReader(arr, request.start().keys(), mfp, request.envelope());
                readerOf = arr;
            }
            SharedArrangement.Snapshot snap = reads.snapshot();
            Frontier upper = snap.upper();
            if (upper.isEmpty()) {
                return;
            }
            long u = upper.time();
            lastUpper = u;
            if (!started) {
                if (u <= asOf) {
                    return;
                }
                started = true;
                produced = asOf;
                lastProgress = asOf;
                if (request.snapshot()) {
                    offer(new ChangeMessage.Updates(asOf, reader.snapshot(reads, asOf)));
                }
            }
            if (u <= lastProgress) {
                return;
            }
            if (snap.since().compareTo(Frontier.at(produced)) > 0) {
                throw new IllegalStateException("index " + arr.id() + " compacted to " + snap.since() + " past the stream's position " + produced);
            }
            reader.changes(reads, produced, u, (t, changes) -> offer(new ChangeMessage.Updates(t, changes)));
            produced = u - 1;
            // Progress once after the snapshot, then at most once an interval: an update message already
            // says its timestamp is complete (it carries every change at it), so a progress message after
            // each one would double the messages of a busy stream and tell its client little.
            if (lastProgress == asOf || u - lastProgress >= server.limits().progressIntervalMillis()) {
                lastProgress = u;
                offer(new ChangeMessage.Progress(u));
            }
        } catch (ChangeStreamException e) {
            // What was valid before the failing time is still delivered, then the failure.
            endAfterDrain(new ChangeStreamException(e.kind(), e.getMessage(), null));
        } catch (RuntimeException e) {
            fail(new ChangeStreamException(ChangeStreamException.Kind.FAILED, "the stream failed: " + e.getMessage(), delivered));
        }
    }

    private static long weight(ChangeMessage m) {
        return m instanceof ChangeMessage.Updates u ? Math.max(1, u.changes().size()) : 1;
    }

    /** The bytes of a message's rows (and a few for each change), as held while it waits. */
    private static long bytes(ChangeMessage m) {
        if (!(m instanceof ChangeMessage.Updates u)) {
            return 16;
        }
        long n = 16;
        for (ChangeMessage.Change c : u.changes()) {
            n += 16 + switch (c) {
                case ChangeMessage.Diff d -> d.row().byteSize();
                case ChangeMessage.Upsert x -> x.key().byteSize() + (x.value() == null ? 0 : x.value().byteSize());
            };
        }
        return n;
    }

    private void dequeued(ChangeMessage m) {
        buffered.addAndGet(-weight(m));
        long b = bytes(m);
        bufferedBytes.addAndGet(-b);
        server.buffer(-b);
    }

    /** Forgets every waiting message (the stream ends). */
    private void clearQueue() {
        ChangeMessage m;
        while ((m = queue.poll()) != null) {
            dequeued(m);
        }
    }

    /** Queues {@code m}, or ends the stream as lagged when too much already waits. */
    private void offer(ChangeMessage m) {
        if (terminal != null || ended.get()) {
            return;
        }
        ChangeStreamLimits limits = server.limits();
        long b = bytes(m);
        // (a subscription with nothing waiting is never the one ended for the total)
        String over = buffered.get() > limits.bufferUpdates() ? limits.bufferUpdates() + " updates (tandem.subscribe.buffer-updates)"
                : server.bufferedBytes() + b > limits.totalBufferBytes() && bufferedBytes.get() > 0
                        ? limits.totalBufferBytes() + " bytes waiting in all subscriptions (tandem.subscribe.total-buffer-bytes)"
                : bufferedBytes.get() > limits.bufferBytes() ? limits.bufferBytes() + " bytes (tandem.subscribe.buffer-bytes)" : null;
        if (over != null) {
            server.countLagged();
            fail(new ChangeStreamException(ChangeStreamException.Kind.LAGGED, "the subscriber fell more than " + over
                    + " behind; resume with as_of = " + delivered + " and snapshot false", delivered));
            return;
        }
        buffered.addAndGet(weight(m));
        bufferedBytes.addAndGet(b);
        server.buffer(b);
        queue.add(m);
        if (ended.get()) {
            // ended meanwhile (a cancel): what it cleared did not include this message
            clearQueue();
            return;
        }
        drain();
    }

    private void fail(ChangeStreamException e) {
        if (terminal == null) {
            immediate = true;
            terminal = e;
        }
        stopProducing();
        drain();
    }

    private void endAfterDrain(ChangeStreamException e) {
        if (terminal == null) {
            terminal = e;
        }
        stopProducing();
        drain();
    }

    private void stopProducing() {
        server.leave(this);
    }

    /** Ends the stream at once: its index's feed failed. */
    void feedFailed(Throwable e) {
        fail(new ChangeStreamException(ChangeStreamException.Kind.FAILED, "the stream failed: " + e, delivered));
    }

    String indexId() {
        return request.start().indexId();
    }

    /** Hands queued messages to the consumer as it asks for them; one drainer at a time. */
    private void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        while (true) {
            FluxSink<ChangeMessage> s = sink;
            if (s != null && !ended.get()) {
                ChangeStreamException t = terminal;
                if (t != null && immediate) {
                    clearQueue();
                    s.error(t);
                    end(t);
                } else {
                    while (s.requestedFromDownstream() > 0) {
                        ChangeMessage m = queue.poll();
                        if (m == null) {
                            break;
                        }
                        dequeued(m);
                        deliver(m);
                        s.next(m);
                    }
                    if (t != null && queue.isEmpty()) {
                        s.error(new ChangeStreamException(t.kind(), t.getMessage(), delivered));
                        end(t);
                    }
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /** The consumer takes {@code m}: what it has seen completely advances, and the hold with it. */
    private void deliver(ChangeMessage m) {
        long complete = m.complete();
        Long d = delivered;
        if (d == null || complete > d) {
            delivered = complete;
            ReadHold h = hold;
            if (h != null) {
                h.downgrade(Frontier.at(complete));
            }
        }
        messages.incrementAndGet();
        server.countMessage();
    }

    /** Ends the subscription once: stops producing, releases the hold and the slot. */
    private void end(ChangeStreamException why) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        stopProducing();
        clearQueue();
        request.start().release();
        ReadHold h = hold;
        if (h != null) {
            h.release();
        }
        request.start().ended();
        server.ended(this, why);
    }

    /** Ends the stream at once with {@code e} (the server is closing). */
    void close(ChangeStreamException e) {
        fail(e);
        if (sink == null) {
            end(e);
        }
    }

    SubscriptionStatus status() {
        Long d = delivered;
        long u = lastUpper;
        Long upper = u == Long.MIN_VALUE ? null : u;
        long lag = upper == null ? 0 : Math.max(0, (upper - 1) - (d == null ? asOf : d));
        return new SubscriptionStatus(id, request.start().indexName(), request.subscriber(), d, upper, lag, buffered.get(), messages.get(),
                bytes.get());
    }
}
