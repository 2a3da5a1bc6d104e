package dev.tandem.runtime;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeCommand.AllowCompaction;
import dev.tandem.protocol.ComputeCommand.CancelPeek;
import dev.tandem.protocol.ComputeCommand.CreateDataflow;
import dev.tandem.protocol.ComputeCommand.Peek;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ComputeResponse.Frontiers;
import dev.tandem.protocol.ComputeResponse.PeekResult;
import dev.tandem.protocol.ComputeResponse.Status;
import dev.tandem.protocol.ComputeResponse.StatusKind;
import dev.tandem.protocol.Finishing;
import dev.tandem.render.Dataflow;
import dev.tandem.render.DataflowListener;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import dev.tandem.trace.ReadHold;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One compute runtime in a role. Commands are applied in order on the runtime's command thread;
 * dataflow steps run on its worker pool; peeks wait for their index's publication and seal on the
 * sharing registry (no polling) and are then answered on the threads the role gives it
 * ({@link RuntimeLanes}). Exactly one response per peek ({@link PendingPeeks}); frontiers never
 * regress and nothing follows an empty one. Made by {@link #builder()}.
 */
public final class ComputeRuntime implements ComputeInstance {

    private final Role role;
    private final TableStorage storage;
    private final ArrangementSharingRegistry registry;
    private final LongSupplier clock;
    private final RuntimeResources resources;
    private final RuntimeObserver observer;
    private final boolean shareWithReader;
    private final FatalErrorHandler fatal;
    private final RuntimeLanes lanes;
    private final PendingPeeks peeks;
    /** Admits the interactive runtime's new fast-path peeks, or null (none: reads first in every case). */
    private final MaintenanceReserve reserve;
    /** The nice value of the workers that keep hydrated indexes fresh, and of the introspection logging. */
    private final int workerNice;
    private final long dataflowMemoryBudget;

    private final HostedDataflows hosted;
    private final Map<String, Frontier> reported = new HashMap<>();
    private final RuntimeIntrospection introspection;
    private volatile ComputeParameters parameters = ComputeParameters.DEFAULTS;

    /** A maintained dataflow that failed: shown in introspection with its error until it is dropped. */
    public record FailedDataflow(String id, long asOf, String error) {
    }

    /** A runtime as {@code b} says, on {@code resources}; {@link ComputeRuntimeBuilder#build} has checked them. */
    ComputeRuntime(ComputeRuntimeBuilder b, RuntimeResources resources) {
        this.role = b.role;
        this.observer = b.observer;
        this.fatal = b.fatal;
        this.storage = b.storage;
        this.registry = b.registry;
        this.resources = resources;
        this.clock = resources.clockMillis();
        this.shareWithReader = b.shareWithReader;
        this.reserve = b.maintenanceReserve;
        this.workerNice = b.nice;
        this.dataflowMemoryBudget = b.dataflowMemoryBudget;
        this.lanes = new RuntimeLanes(role, b.workers, resources, fatal, b.nice, b.hydrationNice,
                b.hydrationLanes == null || b.hydrationLanes,
                b.freshRoundUpdates == null ? SchedulerWorkerPool.DEFAULT_FRESH_ROUND_UPDATES : b.freshRoundUpdates);
        this.peeks = new PendingPeeks(role, resources.tickerNanos(), observer, lanes::emit);
        this.introspection = new RuntimeIntrospection(role, registry, this::report);
        this.hosted = new HostedDataflows(registry);
    }

    /** A builder of a runtime; its role, storage and sharing registry must be given. */
    public static ComputeRuntimeBuilder builder() {
        return new ComputeRuntimeBuilder();
    }

    public Role role() {
        return role;
    }

    public int workers() {
        return lanes.pool().size();
    }

    /** Tasks queued or running on this runtime's worker pool. */
    public long queueDepth() {
        return lanes.pool().queued();
    }

    /**
     * Applies {@code command} in order. Peeks and cancels start at once on the caller's thread: they
     * only register with the sharing registry (waiting there for publication and seal) and never
     * depend on dataflow commands, so a read never queues behind dataflow set-up on the command
     * thread. {@code Hello}, which forgets pending peeks, is applied at once too, so it stays ordered
     * with them.
     */
    @Override
    public void send(ComputeCommand command) {
        if (command instanceof CreateDataflow c) {
            // Noted before the command queues: a peek of its export (applied at once) must see it.
            hosted.noteBounded(c.dataflow());
        }
        if (command instanceof Peek || command instanceof CancelPeek || command instanceof ComputeCommand.Hello) {
            apply(command);
        } else {
            lanes.onCommandThread(() -> apply(command));
        }
    }

    /**
     * Runs {@code task} on this runtime's own threads: the interactive fast lane, or maintenance worker
     * 0. An error escaping it is fatal to the process (shared fate).
     */
    public void execute(Runnable task) {
        lanes.execute(task);
    }

    /**
     * Adds a source of rows for the introspection collection {@code id}, sampled with this runtime's own
     * state (e.g. the change-stream server's subscriptions); each row lists the collection's columns.
     */
    public void addIntrospectionSource(String id, Supplier<List<List<Object>>> rows) {
        introspection.addSource(id, rows);
    }

    /** The sources added with {@link #addIntrospectionSource}, by collection id. */
    Map<String, Supplier<List<List<Object>>>> introspectionSources() {
        return introspection.sources();
    }

    /** Runs {@code task} on the command thread after every command sent so far was applied. */
    public void runAfterCommands(Runnable task) {
        lanes.onCommandThread(task);
    }

    @Override
    public Flux<ComputeResponse> responses() {
        return lanes.responses();
    }

    /** Dataflows hosted here, by export id (for introspection and metrics). */
    public Map<String, Dataflow> dataflows() {
        return hosted.byExport();
    }

    /** Maintained dataflows that failed and were not dropped yet (for introspection). */
    public Collection<FailedDataflow> failedDataflows() {
        return hosted.failures();
    }

    public int pendingPeeks() {
        return peeks.size();
    }

    public long emitFailures() {
        return lanes.emitFailures();
    }

    private void apply(ComputeCommand command) {
        switch (command) {
            case ComputeCommand.Hello h -> peeks.forgetAll();
            case ComputeCommand.CreateInstance c -> {
                parameters = c.parameters().over(parameters);
                createInstance();
            }
            case ComputeCommand.InitializationComplete i -> {
            }
            case ComputeCommand.UpdateConfiguration u -> parameters = u.parameters().over(parameters);
            case CreateDataflow c -> createDataflow(c.dataflow());
            case ComputeCommand.Schedule s -> hosted.schedule(s.id());
            case AllowCompaction a -> {
                if (a.frontier().isEmpty()) {
                    hosted.forgetFailure(a.id());
                }
                allowCompaction(a.id(), a.frontier());
            }
            case Peek p -> startPeek(p);
            case CancelPeek c -> peeks.cancel(c.uuid());
        }
    }

    /** Installs introspection: maintenance's (or solo's) logging dataflows, or the interactive runtime's mirrors. */
    private void createInstance() {
        introspection.install(() -> new IntrospectionLogger(this, registry, shareWithReader, listener, resources, fatal), workerNice,
                df -> hosted.host(df, false));
    }

    private void createDataflow(DataflowDescription desc) {
        String id = desc.indexExports().isEmpty() ? "dataflow" : desc.indexExports().get(0).id();
        try {
            desc.validate();
            for (String table : desc.sourceImports().keySet()) {
                if (!storage.tables().contains(table)) {
                    throw new IllegalArgumentException("source import " + table + " is not a table");
                }
            }
            desc.validateSince(this::sinceOf);
            for (DataflowDescription.IndexExport e : desc.indexExports()) {
                if (hosted.exports(e.id()) || registry.current(e.id()).state() != Publication.State.PLACEHOLDER) {
                    throw new IllegalArgumentException("export id " + e.id() + " already exists");
                }
            }
        } catch (RuntimeException e) {
            hosted.forgetRefused(desc);
            emit(new Status(StatusKind.DATAFLOW_REJECTED, id, e.getMessage()));
            return;
        }
        Dataflow df = Dataflow.render(id, desc, new Dataflow.Env(lanes.pool(), storage, registry, listener, clock,
                (dataflow, operator, worker, nanos) -> {
                    observer.stepCompleted(role, dataflow, operator, worker, nanos);
                    introspection.step(dataflow, operator, worker, nanos);
                }, dataflowMemoryBudget));
        df.shareWithReader(shareWithReader);
        hosted.host(df, true);
        for (String e : df.exportIds()) {
            Peek early = peeks.earlyFor(e);
            if (early != null) {
                peeks.offerEarly(df, early);
            }
        }
    }

    /** The compaction frontier of an import: a table's since, or a published index's (unknown: MIN). */
    private Frontier sinceOf(String id) {
        if (storage.tables().contains(id)) {
            return storage.since(id);
        }
        Publication p = registry.current(id);
        if (p.dropped()) {
            return Frontier.EMPTY;
        }
        return p.published() ? p.arrangement().snapshot().since() : Frontier.MIN;
    }

    private void allowCompaction(String id, Frontier frontier) {
        if (frontier.isEmpty()) {
            hosted.forgetBounded(id);
            peeks.forgetEarly(id);
        }
        Dataflow df = hosted.get(id);
        if (df == null) {
            if (role == Role.INTERACTIVE) {
                registry.advanceStandingHold(id, frontier);
            }
            return;
        }
        if (!frontier.isEmpty()) {
            df.allowCompaction(id, frontier);
            return;
        }
        hosted.drop(id, df);
        report(id, Frontier.EMPTY);
    }

    private void startPeek(Peek peek) {
        UUID uuid = peek.uuid();
        if (peeks.isPending(uuid)) {
            emit(new Status(StatusKind.DUPLICATE_PEEK, uuid.toString(), "a peek with this uuid is already pending; the second was ignored"));
            return;
        }
        // A peek that must wait holds its read time on the target until it is answered (visible in
        // tandem_read_holds); one readable now reads a single immutable snapshot and needs no hold.
        Publication now = registry.current(peek.target());
        boolean readable = now.readableAt(peek.timestamp());
        MaintenanceReserve gate = reserve;
        // a peek readable now on the fast lane asks the reserve at once; one it refuses waits for a later tick below
        boolean asked = readable && lanes.answersOnLanes() && !mayAnswerEarly(peek);
        if (asked && (gate == null || gate.admitNow())) {
            // The common point read: readable now and admitted, answered by one task on the fast lane.
            SharedArrangement arr = now.arrangement();
            Disposable.Swap task = peeks.register(uuid, peekPath(peek.target()));
            task.update(lanes.answerNow(peek, arr, () -> {
                PeekResult r;
                try {
                    r = answer(peek, arr);
                } catch (RuntimeException e) {
                    r = PendingPeeks.failure(e);
                }
                peeks.respond(uuid, r);
            }));
            return;
        }
        AtomicReference<ReadHold> hold = new AtomicReference<>();
        Mono<SharedArrangement> ready = readable
                ? Mono.just(now.arrangement())
                : registry.awaitPublished(peek.target()).flatMap(arr -> {
                    hold.set(arr.acquireHold("peek " + uuid, Frontier.at(peek.timestamp())));
                    return registry.awaitReadable(peek.target(), peek.timestamp());
                });
        if (lanes.answersOnLanes() && gate != null) {
            // a readable peek asked above and was not admitted in this tick; one that had to wait asks now
            ready = asked ? ready.delayUntil(arr -> gate.admitLater()) : ready.delayUntil(arr -> gate.admission());
        }
        Mono<PeekResult> result = ready.flatMap(lanes.<PeekResult>answering(peek, arr -> answer(peek, arr))).doFinally(signal -> {
            ReadHold h = hold.getAndSet(null);
            if (h != null) {
                h.release();
            }
        });
        // Registered before subscribing, so an answer or a cancel that comes at once finds it.
        Disposable.Swap subscription = peeks.register(uuid, peekPath(peek.target()));
        subscription.update(result
                .onErrorResume(e -> Mono.just(PendingPeeks.failure(e)))
                .subscribe(r -> peeks.respond(uuid, r)));
        if (mayAnswerEarly(peek)) {
            // Whichever comes second, this or the dataflow's creation on the command thread, offers it.
            peeks.watchEarly(peek);
            Dataflow df = hosted.get(peek.target());
            if (df != null) {
                peeks.offerEarly(df, peek);
            }
        }
    }

    /**
     * Whether {@code peek} could be answered before its target's output is complete: it reads a bounded
     * dataflow built for it, whole, with a limit (within the result size) and no order, so any rows
     * certainly in the result will do (whether its plan allows that is the dataflow's to say).
     */
    private boolean mayAnswerEarly(Peek peek) {
        Finishing f = peek.finishing();
        long maxRows = peek.maxResultRows() != null ? peek.maxResultRows() : parameters.maxResultRows();
        return hosted.isBounded(peek.target()) && peek.literalKeys() == null && peek.mfp().isIdentity()
                && f.orderBy().isEmpty() && f.limit() != null && f.limit() > 0 && f.limit() <= maxRows;
    }

    /**
     * The path a peek takes, for its metrics: {@code SLOW} when its target is exported by a dataflow this
     * runtime built for that read alone (a bounded one, with an {@code until}), else {@code FAST} (an
     * index, maintained here or published by the maintenance runtime).
     */
    private ReadPath peekPath(String target) {
        return hosted.isBounded(target) ? ReadPath.SLOW : ReadPath.FAST;
    }

    private PeekResult answer(Peek peek, SharedArrangement arr) {
        Dataflow df = hosted.get(peek.target());
        return PeekServer.answer(peek, arr, parameters.maxResultRows(), role.tag(), df == null ? null : df.hydrated());
    }

    private final DataflowListener listener = new DataflowListener() {
        @Override
        public void frontier(String id, Frontier upper) {
            report(id, upper);
        }

        @Override
        public void hydrated(Dataflow dataflow, long millis) {
            emit(new Status(StatusKind.HYDRATED, dataflow.id(), Long.toString(millis)));
            observer.dataflowHydrated(role, dataflow.id(), millis);
        }

        @Override
        public void failed(Dataflow dataflow, String message) {
            ended(dataflow, StatusKind.DATAFLOW_FAILED, message);
        }

        @Override
        public void overBudget(Dataflow dataflow, String message) {
            ended(dataflow, StatusKind.DATAFLOW_OVER_BUDGET, message);
        }

        private void ended(Dataflow dataflow, StatusKind kind, String message) {
            hosted.failed(dataflow, message);
            emit(new Status(kind, dataflow.id(), message));
            lanes.onCommandThread(() -> {
                for (String e : dataflow.exportIds()) {
                    if (hosted.get(e) == dataflow) {
                        allowCompaction(e, Frontier.EMPTY);
                    }
                }
            });
        }
    };

    /** Reports a frontier: only advances, and nothing after the empty frontier. */
    private void report(String id, Frontier upper) {
        synchronized (reported) {
            Frontier last = reported.get(id);
            if (last != null && (last.isEmpty() || upper.compareTo(last) <= 0)) {
                return;
            }
            reported.put(id, upper);
            Dataflow df = hosted.get(id);
            emit(new Frontiers(id, upper, df == null ? upper : df.inputFrontier().join(upper)));
        }
    }

    private void emit(ComputeResponse r) {
        lanes.emit(r);
    }

    @Override
    public void close() {
        introspection.close();
        lanes.closeCommands();
        peeks.stopAll();
        hosted.dropAll();
        lanes.close();
    }
}
