package dev.tandem.runtime;

import java.util.Queue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import reactor.core.publisher.Sinks;

/**
 * Emits into a sink from any number of threads without a lock: each emitter enqueues, and whichever
 * thread finds no drain in progress delivers everything queued, in order, one item at a time.
 *
 * <p>A lock around {@code tryEmitNext} (what this replaces) makes every emitter wait while another
 * delivers: when the holder is a maintenance thread that the CPU-saturated OS has descheduled, the
 * interactive runtime's threads queue up behind it and reads stall for the length of that preemption.
 * Here an emitter never waits; it returns at once and goes on answering. Items from one thread keep
 * their order; items from different threads are delivered in the order they were enqueued.
 *
 * <p>The thread that drains runs the sink's subscribers, and everything waiting in the queue waits for it.
 * A maintenance thread whose priority was lowered ({@link ThreadNice}) and that the OS deschedules
 * mid-drain would hold up the answers queued behind it (seen as reads stalled for seconds while the
 * interactive threads sat idle). So an emitter may have a hand-off executor (a thread of normal
 * priority) and a rule saying when a drain runs there rather than on the emitting thread: always (for
 * maintenance's responses), or when the emitting thread is a lowered one (for the interactive runtime's,
 * which a maintenance thread reaches when a publication it makes is followed by the interactive runtime).
 */
public final class SerialEmitter<T> {

    private final Sinks.Many<T> sink;
    /** Marks the end of the stream in the queue, so completion follows everything emitted before it. */
    private static final Object COMPLETE = new Object();

    private final Queue<Object> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicLong failures = new AtomicLong();

    private final Executor handOff;
    private final BooleanSupplier handingOff;

    /** An emitter whose drains run inline, on whichever emitting thread finds none under way. */
    public SerialEmitter(Sinks.Many<T> sink) {
        this(sink, null, () -> false);
    }

    /** An emitter whose drains run on {@code handOff} when {@code handingOff} says so on the emitting thread, else inline. */
    public SerialEmitter(Sinks.Many<T> sink, Executor handOff, BooleanSupplier handingOff) {
        this.sink = sink;
        this.handOff = handOff;
        this.handingOff = handingOff;
    }

    /** Enqueues {@code item} and delivers it (with whatever else is queued) unless a drain is under way. */
    public void emit(T item) {
        offer(item);
    }

    /** Completes the sink after everything emitted so far. */
    public void complete() {
        offer(COMPLETE);
    }

    private void offer(Object item) {
        queue.offer(item);
        if (wip.getAndIncrement() != 0) {
            return;
        }
        if (handOff != null && handingOff.getAsBoolean()) {
            try {
                handOff.execute(this::drain);
                return;
            } catch (RejectedExecutionException shutDown) {
                // the hand-off is gone (closing): deliver here
            }
        }
        drain();
    }

    /** Delivers everything queued, and what arrives meanwhile; by the one thread that took {@code wip} from 0. */
    @SuppressWarnings("unchecked")
    private void drain() {
        int missed = 1;
        do {
            Object next;
            while ((next = queue.poll()) != null) {
                if (next == COMPLETE) {
                    sink.tryEmitComplete();
                } else if (sink.tryEmitNext((T) next).isFailure()) {
                    failures.incrementAndGet();
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    /** Items the sink refused (no subscriber, or a subscriber gone or overflowing). */
    public long failures() {
        return failures.get();
    }
}
