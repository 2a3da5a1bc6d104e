package dev.tandem.runtime;

import dev.tandem.protocol.ComputeCommand.Peek;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.row.Row;
import dev.tandem.sharing.SharedArrangement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The threads of one compute runtime, which its role decides:
 * <ul>
 *   <li>every role: one command thread that applies commands in order (it may block on set-up work, e.g.
 *       creating logging tables), at the hydration lanes' nice value;</li>
 *   <li>{@code SOLO} and {@code MAINTENANCE}: a bounded-elastic pool of {@code W} workers runs the
 *       maintained dataflows and answers peeks between operator steps, each peek on the next worker in
 *       turn; maintenance's pool gives hydrations and small fresh rounds lanes of their own
 *       ({@link SchedulerWorkerPool}), and its responses are delivered by a thread of normal priority of
 *       their own, never by its lowered threads;</li>
 *   <li>{@code INTERACTIVE}: peeks are answered on a low-latency (non-blocking) fast lane, bulky ones on a
 *       bulk lane of one thread, transient slow-path dataflows on a slow-lane pool of their own; what a
 *       lowered maintenance thread emits here is delivered on the fast lane.</li>
 * </ul>
 */
final class RuntimeLanes {

    /** A peek of more literal keys than this is bulky. */
    static final int BULK_KEYS = 1024;
    /** A peek that scans an index of more records than this is bulky. */
    static final long BULK_RECORDS = 100_000;

    private final Scheduler commandScheduler;
    private final Scheduler.Worker commands;
    /** The nice value of the command thread (0: normal priority), as of the hydration lanes'. */
    private final int commandNice;
    private final SchedulerWorkerPool pool;
    /** The interactive runtime's lane for peeks; null for the other roles. */
    private final Scheduler fastLane;
    /**
     * The interactive runtime's lane for bulky peeks (many literal keys, or a scan of a large index), so
     * that one such read never queues the point reads behind it on the fast lane; null for the other roles.
     */
    private final Scheduler bulkLane;
    private final AtomicInteger nextPeekWorker = new AtomicInteger();
    private final Sinks.Many<ComputeResponse> out = Sinks.many().unicast().onBackpressureBuffer();
    /** Delivers every one of maintenance's responses, at normal priority (see {@link SerialEmitter}); null for the other roles. */
    private final Scheduler responses;
    private final SerialEmitter<ComputeResponse> emitter;

    /**
     * The lanes of a runtime of {@code role} with {@code workers} workers. {@code nice} and
     * {@code hydrationNice} lower the workers and the hydration lanes with the command thread (0: normal
     * priority); {@code hydrationLanes} and {@code freshRoundUpdates} tune maintenance's pool (see
     * {@link SchedulerWorkerPool}; a pool without lanes ignores them).
     */
    RuntimeLanes(Role role, int workers, RuntimeResources resources, FatalErrorHandler fatal, int nice, int hydrationNice,
            boolean hydrationLanes, long freshRoundUpdates) {
        String name = "tandem-" + role.tag();
        RuntimeResources.SchedulerFactory schedulers = resources.schedulers();
        this.commandScheduler = schedulers.newBoundedElastic(name + "-commands", 1);
        // Maintenance's responses are delivered by a thread of normal priority of their own, never by its
        // lowered threads, which the OS may deschedule with the interactive runtime's answers queued behind.
        this.responses = role == Role.MAINTENANCE ? schedulers.newParallel(name + "-responses", 1) : null;
        this.commands = commandScheduler.createWorker();
        this.commandNice = hydrationNice;
        ThreadNice.startThreads(List.of(commands));
        if (role == Role.INTERACTIVE) {
            this.fastLane = schedulers.newParallel(name, workers);
            this.bulkLane = schedulers.newParallel(name + "-bulk", 1);
            this.emitter = new SerialEmitter<>(out, task -> fastLane.schedule(task), ThreadNice::lowered);
            this.pool = new SchedulerWorkerPool(name + "-slow", schedulers.newParallel(name + "-slow", workers), workers, fatal);
        } else {
            this.fastLane = null;
            this.bulkLane = null;
            // Maintenance beside an interactive runtime gives hydrations a lane of their own, so a hydrated
            // index stays fresh while another hydrates; SOLO keeps one queue per worker, as a single runtime would.
            boolean lanes = role == Role.MAINTENANCE;
            this.pool = new SchedulerWorkerPool(name, schedulers.newBoundedElastic(name, lanes ? 3 * workers : workers), workers, lanes, fatal);
            this.emitter = responses == null ? new SerialEmitter<>(out) : new SerialEmitter<>(out, task -> responses.schedule(task), () -> true);
        }
        pool.setBulkLanes(hydrationLanes);
        pool.setFreshRoundUpdates(freshRoundUpdates);
        pool.setNice(nice, hydrationNice);
    }

    /** The pool that runs dataflows: maintained ones, or the interactive runtime's transient ones. */
    SchedulerWorkerPool pool() {
        return pool;
    }

    /** Schedules {@code task} on the command thread, at its nice value: its set-up work is maintenance too. */
    void onCommandThread(Runnable task) {
        commands.schedule(() -> {
            ThreadNice.ensure(commandNice);
            task.run();
        });
    }

    /** Runs {@code task} on the interactive fast lane, or on worker 0 of the other roles' pool. */
    void execute(Runnable task) {
        if (fastLane != null) {
            fastLane.schedule(task);
        } else {
            pool.execute(0, task);
        }
    }

    /** Whether peeks are answered on lanes of their own (the interactive runtime), not between operator steps. */
    boolean answersOnLanes() {
        return fastLane != null;
    }

    /** Runs {@code task}, which answers {@code peek} from {@code arr}, on the lane for it (interactive only). */
    Disposable answerNow(Peek peek, SharedArrangement arr, Runnable task) {
        return laneFor(peek, arr).schedule(task);
    }

    /**
     * How {@code peek} is answered once its arrangement is ready: on the interactive lane for it, or on
     * the next worker in turn (its worker is chosen now).
     */
    <T> Function<SharedArrangement, Mono<T>> answering(Peek peek, Function<SharedArrangement, T> answer) {
        if (fastLane != null) {
            return arr -> Mono.fromCallable(() -> answer.apply(arr)).subscribeOn(laneFor(peek, arr));
        }
        int w = Math.floorMod(nextPeekWorker.getAndIncrement(), pool.size());
        return arr -> pool.call(w, () -> answer.apply(arr));
    }

    /**
     * The interactive lane that answers {@code peek} from {@code arr}: the bulk lane for a read of more
     * than {@link #BULK_KEYS} literal keys or a scan of more than {@link #BULK_RECORDS} records, else
     * the fast lane.
     */
    private Scheduler laneFor(Peek peek, SharedArrangement arr) {
        List<Row> keys = peek.literalKeys();
        boolean bulky = keys != null ? keys.size() > BULK_KEYS : arr.snapshot().records() > BULK_RECORDS;
        return bulky ? bulkLane : fastLane;
    }

    void emit(ComputeResponse r) {
        emitter.emit(r);
    }

    Flux<ComputeResponse> responses() {
        return out.asFlux();
    }

    long emitFailures() {
        return emitter.failures();
    }

    /** Stops the command thread: no command is applied after this. */
    void closeCommands() {
        commands.dispose();
        commandScheduler.dispose();
    }

    /** Stops the workers and the lanes, and completes the responses once what is queued was delivered. */
    void close() {
        pool.dispose();
        if (fastLane != null) {
            fastLane.dispose();
            bulkLane.dispose();
        }
        emitter.complete();
        if (responses != null) {
            // after what is queued, the completion included, has been delivered
            responses.disposeGracefully().subscribe();
        }
    }
}
