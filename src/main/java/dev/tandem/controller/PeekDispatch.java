package dev.tandem.controller;

import dev.tandem.expr.EvalError;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * Sends the controller's commands to the compute replica and hands each peek's answer to the read
 * waiting for it: pending peeks by uuid, the peek waiting on each slow-path read's transient dataflow,
 * timeouts (cancel first, then let the read's hold go) and the mapping of compute's errors.
 *
 * <p>Thread-safe. Commands that change the instance go out one at a time under a lock of its own, in the
 * order they were decided; peeks and their cancels skip it, so a read never waits behind another thread's
 * send. Pending peeks live in concurrent maps; an answer is taken out of the map exactly once.
 */
final class PeekDispatch {

    private final Multiplexer compute;
    /** Where each peek's timeout is scheduled. */
    private final Scheduler timer;
    private final Object sendLock = new Object();
    private final Map<UUID, Sinks.One<ComputeResponse.PeekResult>> peeks = new ConcurrentHashMap<>();
    /** The peek waiting on each transient dataflow, by transient id. */
    private final Map<String, UUID> transientPeeks = new ConcurrentHashMap<>();

    PeekDispatch(Multiplexer compute, Scheduler timer) {
        this.compute = compute;
        this.timer = timer;
    }

    /**
     * Sends a command. Commands that change the instance go out one at a time, in the order they were
     * decided; peeks and their cancels need no order among themselves or with those (a peek finds its
     * target through the sharing registry) and skip the lock, so a read never waits behind another
     * thread's send — nor behind that thread being descheduled while it holds the lock.
     */
    void send(ComputeCommand command) {
        if (command instanceof ComputeCommand.Peek || command instanceof ComputeCommand.CancelPeek) {
            compute.send(command);
            return;
        }
        synchronized (sendLock) {
            compute.send(command);
        }
    }

    /**
     * A random (version 4) uuid for a peek. Peek ids need uniqueness, not secrecy, so this avoids the
     * shared, synchronized secure generator of {@link UUID#randomUUID()} on the read path.
     */
    static UUID peekId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long hi = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lo = (r.nextLong() & ~(3L << 62)) | (1L << 63);
        return new UUID(hi, lo);
    }

    /**
     * Registers the peek of a slow-path read on transient dataflow {@code tid} before the dataflow is
     * created, so that compute refusing or abandoning the dataflow fails the read at once.
     */
    void expectOnTransient(ComputeCommand.Peek peek, String tid) {
        peeks.put(peek.uuid(), Sinks.one());
        transientPeeks.put(tid, peek.uuid());
    }

    /** The read on transient dataflow {@code tid} is over. */
    void forgetTransient(String tid) {
        transientPeeks.remove(tid);
    }

    /**
     * Sends {@code peek} and answers with its rows, or fails: with compute's error, with a timeout (the
     * peek is canceled first, so the replica stops before the caller's hold on the read time goes), or
     * when the reader goes away (canceled at once).
     */
    Mono<ComputeResponse.PeekResult> await(ComputeCommand.Peek peek, Duration timeout, boolean waitsForSeal) {
        UUID uuid = peek.uuid();
        // A slow-path read registers its peek before creating the dataflow, so a rejection finds it.
        Sinks.One<ComputeResponse.PeekResult> sink = peeks.computeIfAbsent(uuid, k -> Sinks.one());
        Disposable expiry = timer.schedule(() -> {
            // Cancel first, so the replica stops before our hold on the read time goes away.
            if (peeks.remove(uuid, sink)) {
                send(new ComputeCommand.CancelPeek(uuid));
                sink.tryEmitError(new ControllerException(ControllerException.Reason.TIMEOUT, "the read at " + peek.timestamp()
                        + " could not be answered within " + timeout.toMillis() + " ms"
                        + (waitsForSeal ? " (the inputs were not sealed at that time)" : "")));
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        send(peek);
        return sink.asMono()
                .doFinally(signal -> {
                    expiry.dispose();
                    // The reader went away (a closed connection or socket): stop the replica at once.
                    if (signal == SignalType.CANCEL && peeks.remove(uuid) != null) {
                        send(new ComputeCommand.CancelPeek(uuid));
                    }
                })
                .handle((result, out) -> {
                    switch (result) {
                        case ComputeResponse.Error err -> out.error(mapPeekError(err));
                        case ComputeResponse.Canceled c -> out.error(new ControllerException(ControllerException.Reason.TIMEOUT, "the read was canceled"));
                        case ComputeResponse.Rows rows -> out.next(result);
                    }
                });
    }

    /** Compute answered a peek: the read waiting for it, if any still is, gets the answer. */
    void answer(ComputeResponse.PeekResponse p) {
        Sinks.One<ComputeResponse.PeekResult> sink = peeks.remove(p.uuid());
        if (sink != null) {
            sink.tryEmitValue(p.result());
        }
    }

    /**
     * Compute refused or abandoned dataflow {@code id} (with {@code code}: a data exception, or the memory
     * budget's): a slow-path read waiting on it fails at once.
     */
    void dataflowFailed(String id, EvalError.Code code, String detail) {
        UUID waiting = id == null ? null : transientPeeks.remove(id);
        Sinks.One<ComputeResponse.PeekResult> sink = waiting == null ? null : peeks.remove(waiting);
        if (sink != null) {
            sink.tryEmitValue(ComputeResponse.Error.failed(code, "the query could not run: " + detail));
        }
    }

    static ControllerException mapPeekError(ComputeResponse.Error error) {
        return switch (error.kind()) {
            case BEFORE_SINCE -> new ControllerException(ControllerException.Reason.BEFORE_SINCE, error.message());
            case TOO_LARGE -> new ControllerException(ControllerException.Reason.TOO_LARGE, error.message());
            case INVALID, UNKNOWN_COLLECTION -> new ControllerException(ControllerException.Reason.INVALID, error.message());
            case FAILED -> ControllerException.evaluation(error.code(), error.message());
        };
    }
}
