package dev.tandem.runtime;

import dev.tandem.expr.EvalError;
import dev.tandem.protocol.ComputeCommand.Peek;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ComputeResponse.PeekResponse;
import dev.tandem.protocol.ComputeResponse.PeekResult;
import dev.tandem.render.Dataflow;
import dev.tandem.time.Frontier;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import reactor.core.Disposable;
import reactor.core.Disposables;

/**
 * A runtime's peeks waiting for their answer, and those of them that a bounded dataflow may answer
 * before its output is complete (early). Each peek gets exactly one response: its answer, an error, or
 * {@code Canceled}; whichever comes first wins and the others are dropped. Every method may be called
 * from any thread.
 */
final class PendingPeeks {

    /** A peek waiting for its answer: how to stop it, and what to report when it ends. */
    private record PendingPeek(Disposable subscription, ReadPath path, long startNanos) {
    }

    private final Map<UUID, PendingPeek> peeks = new ConcurrentHashMap<>();
    /** Peeks of bounded exports that may be answered before the output is complete, by export id. */
    private final Map<String, Peek> early = new ConcurrentHashMap<>();
    private final Role role;
    private final LongSupplier tickerNanos;
    private final RuntimeObserver observer;
    private final Consumer<ComputeResponse> emit;

    /** Peeks of a runtime of {@code role}, answered through {@code emit}, timed on {@code tickerNanos} for {@code observer}. */
    PendingPeeks(Role role, LongSupplier tickerNanos, RuntimeObserver observer, Consumer<ComputeResponse> emit) {
        this.role = role;
        this.tickerNanos = tickerNanos;
        this.observer = observer;
        this.emit = emit;
    }

    boolean isPending(UUID uuid) {
        return peeks.containsKey(uuid);
    }

    /**
     * Registers peek {@code uuid} taking {@code path}, before its work is subscribed (so that an answer or a
     * cancel that comes at once finds it); the work goes into the returned holder, which a cancel disposes.
     */
    Disposable.Swap register(UUID uuid, ReadPath path) {
        Disposable.Swap subscription = Disposables.swap();
        peeks.put(uuid, new PendingPeek(subscription, path, tickerNanos.getAsLong()));
        return subscription;
    }

    /** Answers peek {@code uuid} with {@code result}, unless it was answered or canceled already. */
    void respond(UUID uuid, PeekResult result) {
        PendingPeek p = peeks.remove(uuid);
        if (p != null) {
            emit.accept(new PeekResponse(uuid, result));
            observer.peekCompleted(role, p.path(), result instanceof ComputeResponse.Rows ? "rows" : "error", tickerNanos.getAsLong() - p.startNanos());
        }
    }

    /**
     * The answer to a peek whose work failed with {@code e}: an evaluation error as itself, anything else as a
     * data exception with its message, or its name when it has none.
     */
    static ComputeResponse.Error failure(Throwable e) {
        if (e instanceof EvalError x) {
            return ComputeResponse.Error.failed(x.error());
        }
        return ComputeResponse.Error.failed(EvalError.Code.DATA_EXCEPTION, e.getMessage() == null ? e.toString() : e.getMessage());
    }

    /** Stops peek {@code uuid} and answers it {@code Canceled}, unless it was answered already. */
    void cancel(UUID uuid) {
        PendingPeek p = peeks.remove(uuid);
        if (p != null) {
            p.subscription().dispose();
            emit.accept(new PeekResponse(uuid, new ComputeResponse.Canceled()));
            observer.peekCompleted(role, p.path(), "canceled", tickerNanos.getAsLong() - p.startNanos());
        }
    }

    /** Stops and forgets every peek, answering none (a new controller forgets the old one's). */
    void forgetAll() {
        stopAll();
        peeks.clear();
        early.clear();
    }

    /** Stops every pending peek's work (the runtime is closing). */
    void stopAll() {
        peeks.values().forEach(p -> p.subscription().dispose());
    }

    int size() {
        return peeks.size();
    }

    /** Notes that {@code peek} may be answered early, by whichever dataflow exports its target. */
    void watchEarly(Peek peek) {
        early.put(peek.target(), peek);
    }

    /** The peek that export {@code id} may answer early, or null. */
    Peek earlyFor(String id) {
        return early.get(id);
    }

    /** Forgets the early peek of export {@code id} (the export was dropped). */
    void forgetEarly(String id) {
        early.remove(id);
    }

    /**
     * Asks {@code df} to answer {@code peek} early. The answer's {@code upper} is the read time itself
     * (the output was not complete past it), which tells the controller it was cut short; the
     * dataflow has stopped by then, and the controller drops it as for any answer.
     */
    void offerEarly(Dataflow df, Peek peek) {
        long t = peek.timestamp();
        df.answerEarly(t, peek.finishing().offset(), peek.finishing().limit(), rows -> {
            PendingPeek p = peeks.get(peek.uuid());
            respond(peek.uuid(), new ComputeResponse.Rows(rows, new ComputeResponse.ReadInfo(t, Frontier.at(t), Frontier.at(t), false, role.tag())));
            if (p != null) {
                // Stops waiting for the seal that will never come, and releases the peek's hold.
                p.subscription().dispose();
            }
        });
    }
}
