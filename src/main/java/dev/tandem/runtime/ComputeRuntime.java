package dev.tandem.runtime;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeCommand.AllowCompaction;
import dev.tandem.protocol.ComputeCommand.CancelPeek;
import dev.tandem.protocol.ComputeCommand.CreateDataflow;
import dev.tandem.protocol.ComputeCommand.Peek;
import dev.tandem.protocol.Finishing;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ComputeResponse.Frontiers;
import dev.tandem.protocol.ComputeResponse.PeekResponse;
import dev.tandem.protocol.ComputeResponse.PeekResult;
import dev.tandem.protocol.ComputeResponse.Status;
import dev.tandem.render.Dataflow;
import dev.tandem.row.Row;
import dev.tandem.render.DataflowListener;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.sharing.SharedArrangement;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import dev.tandem.trace.ReadHold;
import java.util.function.LongSupplier;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * One compute runtime in a role. Commands are applied in order on the runtime's command thread;
 * dataflow steps run on its worker pool; peeks wait for their index's publication and seal on the
 * sharing registry (no polling) and are then answered:
 * <ul>
 *   <li>{@code SOLO} and {@code MAINTENANCE}: a bounded-elastic pool of {@code W} workers runs the
 *       maintained dataflows; in {@code SOLO} peeks are answered on those same workers, between
 *       operator steps.</li>
 *   <li>{@code INTERACTIVE}: peeks are Mono pipelines on a separate low-latency (non-blocking)
 *       scheduler, the fast lane; transient slow-path dataflows run on their own slow-lane pool, so a
 *       fast-path peek never queues behind them.</li>
 * </ul>
 * Exactly one response per peek; frontiers never regress and nothing follows an empty one.
 */
public final class ComputeRuntime implements ComputeInstance {

    private final Role role;
    private final TableStorage storage;
    private final ArrangementSharingRegistry registry;
    private final LongSupplier clock;
    private final RuntimeResources resources;
    private final RuntimeObserver observer;
    private final boolean shareWithReader;
    private final Scheduler commandScheduler;
    private final Scheduler.Worker commands;
    private final SchedulerWorkerPool pool;
    private final Scheduler fastLane;
    /**
     * The interactive runtime's lane for bulky peeks (many literal keys, or a scan of a large index), so
     * that one such read never queues the point reads behind it on the fast lane.
     */
    private final Scheduler bulkLane;
    /** A peek of more literal keys than this is bulky. */
    static final int BULK_KEYS = 1024;
    /** A peek that scans an index of more records than this is bulky. */
    static final long BULK_RECORDS = 100_000;
    private final Sinks.Many<ComputeResponse> out = Sinks.many().unicast().onBackpressureBuffer();
    /**
     * Delivers every one of maintenance's responses, at normal priority (see {@link SerialEmitter}); null
     * for the other roles.
     */
    private final Scheduler responses;
    private final SerialEmitter<ComputeResponse> emitter;

    private final Map<String, Dataflow> byExport = new ConcurrentHashMap<>();
    /** Exports of bounded dataflows (built for one read, with an {@code until}) sent here and not yet dropped. */
    private final Set<String> boundedExports = ConcurrentHashMap.newKeySet();
    private final Map<Dataflow, Set<String>> unscheduled = new HashMap<>();
    // concurrent: close() takes its keys from another thread while the command thread may still change it
    private final Map<Dataflow, Set<String>> liveExports = new ConcurrentHashMap<>();
    private final Map<UUID, PendingPeek> peeks = new ConcurrentHashMap<>();
    private volatile MaintenanceReserve reserve;
    /** Peeks of bounded exports that may be answered before the output is complete, by export id. */
    private final Map<String, Peek> earlyPeeks = new ConcurrentHashMap<>();
    /** Maintained dataflows that failed, by id, until the controller drops their exports. */
    private final Map<String, FailedDataflow> failed = new ConcurrentHashMap<>();

    /** A maintained dataflow that failed: shown in introspection with its error until it is dropped. */
    public record FailedDataflow(String id, long asOf, String error) {
    }

    /** A peek waiting for its answer: how to stop it, and what to report when it ends. */
    private record PendingPeek(Disposable subscription, String path, long startNanos) {
    }
    private final Map<String, Frontier> reported = new HashMap<>();
    private final AtomicInteger nextPeekWorker = new AtomicInteger();
    private final FatalErrorHandler fatal;
    private final List<Disposable> mirrors = new ArrayList<>();
    private volatile IntrospectionLogger logging;
    private final Map<String, java.util.function.Supplier<List<List<Object>>>> introspectionSources = new ConcurrentHashMap<>();
    private volatile ComputeParameters parameters = ComputeParameters.DEFAULTS;
    /** The nice value of the command thread (0: normal priority), as of the hydration lanes'. */
    private volatile int commandNice;
    /** The nice value of the workers that keep hydrated indexes fresh, and of the introspection logging. */
    private volatile int workerNice;
    private volatile long dataflowMemoryBudget = dev.tandem.render.MemoryBudget.UNLIMITED;

    private ComputeRuntime(Role role, int workers, TableStorage storage, ArrangementSharingRegistry registry, boolean shareWithReader,
            FatalErrorHandler fatal, RuntimeResources resources, RuntimeObserver observer) {
        this.role = role;
        this.observer = observer;
        this.fatal = fatal;
        this.storage = storage;
        this.registry = registry;
        this.resources = resources;
        this.clock = resources.clockMillis();
        this.shareWithReader = shareWithReader;
        String name = "tandem-" + role.tag();
        RuntimeResources.SchedulerFactory schedulers = resources.schedulers();
        // One thread applies commands in order; it may block on set-up work (e.g. creating logging tables).
        this.commandScheduler = schedulers.newBoundedElastic(name + "-commands", 1);
        // Maintenance's responses are delivered by a thread of normal priority of their own, never by its
        // lowered threads, which the OS may deschedule with the interactive runtime's answers queued behind.
        this.responses = role == Role.MAINTENANCE ? schedulers.newParallel(name + "-responses", 1) : null;
        this.commands = commandScheduler.createWorker();
        ThreadNice.startThreads(List.of(commands));
        if (role == Role.INTERACTIVE) {
            this.fastLane = schedulers.newParallel(name, workers);
            this.bulkLane = schedulers.newParallel(name + "-bulk", 1);
            // A lowered maintenance thread reaches this runtime when it publishes (an introspection mirror's
            // report, an import dropped under a query): what it emits here is delivered on the fast lane.
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
    }

    /**
     * Creates a runtime. {@code shareWithReader} (maintenance in two-runtime mode) publishes every
     * export with a standing hold for the interactive runtime.
     */
    public static ComputeRuntime create(Role role, int workers, TableStorage storage, ArrangementSharingRegistry registry,
            boolean shareWithReader, FatalErrorHandler fatal, LongSupplier clock, RuntimeObserver observer) {
        return create(role, workers, storage, registry, shareWithReader, fatal, RuntimeResources.of(clock), observer);
    }

    /** Creates a runtime whose time, schedulers and intervals come from {@code resources}. */
    public static ComputeRuntime create(Role role, int workers, TableStorage storage, ArrangementSharingRegistry registry,
            boolean shareWithReader, FatalErrorHandler fatal, RuntimeResources resources, RuntimeObserver observer) {
        return new ComputeRuntime(role, Math.max(1, workers), storage, registry, shareWithReader, fatal, resources, observer);
    }

    /** Sets the memory budget of each dataflow created from now on (bytes). */
    public void setDataflowMemoryBudget(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a dataflow memory budget must be positive, got " + bytes);
        }
        this.dataflowMemoryBudget = bytes;
    }

    /**
     * The largest round (in table updates) of a hydrated dataflow reading tables only that runs on a
     * fresh lane, at normal priority; 0: none (a maintenance runtime's only; set before any dataflow).
     */
    public void setFreshRoundUpdates(long updates) {
        pool.setFreshRoundUpdates(updates);
    }

    /** Whether hydration rounds run on lanes of their own (a maintenance runtime's only; set before any dataflow). */
    public void setHydrationLanes(boolean lanes) {
        pool.setBulkLanes(lanes);
    }

    /**
     * Lowers the OS priority (0: normal; see {@link ThreadNice}) of this runtime's workers and its
     * introspection logging to {@code nice}, and of its hydration lanes and its command thread (which
     * builds new dataflows' table snapshots) to {@code hydrationNice}.
     */
    public void setWorkerNice(int nice, int hydrationNice) {
        pool.setNice(nice, hydrationNice);
        commandNice = hydrationNice;
        workerNice = nice;
        IntrospectionLogger l = logging;
        if (l != null) {
            l.setNice(nice);
        }
    }

    public Role role() {
        return role;
    }

    public int workers() {
        return pool.size();
    }

    /** Tasks queued or running on this runtime's worker pool. */
    public long queueDepth() {
        return pool.queued();
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
        if (command instanceof CreateDataflow c && c.dataflow().until() != null) {
            // Noted before the command queues: a peek of its export (applied at once) must see it.
            c.dataflow().indexExports().forEach(e -> boundedExports.add(e.id()));
        }
        if (command instanceof Peek || command instanceof CancelPeek || command instanceof ComputeCommand.Hello) {
            apply(command);
        } else {
            onCommandThread(() -> apply(command));
        }
    }

    /**
     * Runs {@code task} on this runtime's own threads: the interactive fast lane, or maintenance worker
     * 0. An error escaping it is fatal to the process (shared fate).
     */
    public void execute(Runnable task) {
        if (fastLane != null) {
            fastLane.schedule(task);
        } else {
            pool.execute(0, task);
        }
    }

    /**
     * Adds a source of rows for the introspection collection {@code id}, sampled with this runtime's own
     * state (e.g. the change-stream server's subscriptions); each row lists the collection's columns.
     */
    public void addIntrospectionSource(String id, java.util.function.Supplier<List<List<Object>>> rows) {
        introspectionSources.put(id, rows);
    }

    /** The sources added with {@link #addIntrospectionSource}, by collection id. */
    Map<String, java.util.function.Supplier<List<List<Object>>>> introspectionSources() {
        return introspectionSources;
    }

    /** Runs {@code task} on the command thread after every command sent so far was applied. */
    public void runAfterCommands(Runnable task) {
        onCommandThread(task);
    }

    /**
     * Admits this (interactive) runtime's new fast-path peeks through {@code reserve}'s budget, so that
     * maintenance keeps its reserved share of the CPU under a flood of reads.
     */
    public void setMaintenanceReserve(MaintenanceReserve reserve) {
        this.reserve = reserve;
    }

    /** Schedules {@code task} on the command thread, at the workers' nice value: its set-up work is maintenance too. */
    private void onCommandThread(Runnable task) {
        commands.schedule(() -> {
            ThreadNice.ensure(commandNice);
            task.run();
        });
    }

    @Override
    public Flux<ComputeResponse> responses() {
        return out.asFlux();
    }

    /** Dataflows hosted here, by export id (for introspection and metrics). */
    public Map<String, Dataflow> dataflows() {
        return Map.copyOf(byExport);
    }

    /** Maintained dataflows that failed and were not dropped yet (for introspection). */
    public java.util.Collection<FailedDataflow> failedDataflows() {
        return List.copyOf(failed.values());
    }

    public int pendingPeeks() {
        return peeks.size();
    }

    public long emitFailures() {
        return emitter.failures();
    }

    private void apply(ComputeCommand command) {
        switch (command) {
            case ComputeCommand.Hello h -> {
                peeks.values().forEach(p -> p.subscription().dispose());
                peeks.clear();
                earlyPeeks.clear();
            }
            case ComputeCommand.CreateInstance c -> {
                parameters = c.parameters().over(parameters);
                createInstance();
            }
            case ComputeCommand.InitializationComplete i -> {
            }
            case ComputeCommand.UpdateConfiguration u -> parameters = u.parameters().over(parameters);
            case CreateDataflow c -> createDataflow(c.dataflow());
            case ComputeCommand.Schedule s -> schedule(s.id());
            case AllowCompaction a -> {
                if (a.frontier().isEmpty()) {
                    failed.remove(a.id());
                }
                allowCompaction(a.id(), a.frontier());
            }
            case Peek p -> startPeek(p);
            case CancelPeek c -> cancelPeek(c.uuid());
        }
    }

    /**
     * Installs introspection: maintenance (or solo) starts its logging dataflows; the interactive
     * runtime installs none and follows maintenance's published copies, reporting their frontiers as it
     * sees them (the multiplexer passes only the owner's reports).
     */
    private void createInstance() {
        if (logging != null || !mirrors.isEmpty()) {
            return;
        }
        if (role == Role.INTERACTIVE) {
            for (Introspection.Collection c : Introspection.ALL) {
                mirrors.add(registry.publications(c.id()).subscribe(p -> {
                    if (p.published()) {
                        report(c.id(), p.upper());
                    }
                }));
            }
            return;
        }
        // Built at normal priority: the command thread may be lowered, and the logging's threads (its
        // timer, worker and storage) would inherit that for life. Its sampler and worker then lower
        // themselves to the workers' nice value: logging is maintenance work.
        logging = ThreadNice.atNormalPriority(() -> new IntrospectionLogger(this, registry, shareWithReader, listener, resources, fatal));
        logging.setNice(workerNice);
        for (Dataflow df : logging.dataflows()) {
            Set<String> exports = new HashSet<>(df.exportIds());
            liveExports.put(df, exports);
            for (String e : exports) {
                byExport.put(e, df);
            }
        }
        logging.start();
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
                if (byExport.containsKey(e.id()) || registry.current(e.id()).state() != Publication.State.PLACEHOLDER) {
                    throw new IllegalArgumentException("export id " + e.id() + " already exists");
                }
            }
        } catch (RuntimeException e) {
            if (desc.until() != null) {
                desc.indexExports().stream().filter(x -> !byExport.containsKey(x.id())).forEach(x -> boundedExports.remove(x.id()));
            }
            emit(new Status("dataflow_rejected", id, e.getMessage()));
            return;
        }
        Dataflow df = Dataflow.render(id, desc, new Dataflow.Env(pool, storage, registry, listener, clock,
                (dataflow, operator, worker, nanos) -> {
                    observer.stepCompleted(role, dataflow, operator, worker, nanos);
                    IntrospectionLogger l = logging;
                    if (l != null) {
                        l.step(dataflow, operator, worker, nanos);
                    }
                }, dataflowMemoryBudget));
        df.shareWithReader(shareWithReader);
        Set<String> exports = new HashSet<>(df.exportIds());
        unscheduled.put(df, new HashSet<>(exports));
        liveExports.put(df, exports);
        for (String e : exports) {
            byExport.put(e, df);
            Peek early = earlyPeeks.get(e);
            if (early != null) {
                offerEarly(df, early);
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

    private void schedule(String exportId) {
        Dataflow df = byExport.get(exportId);
        if (df == null) {
            return;
        }
        Set<String> pending = unscheduled.get(df);
        if (pending != null && pending.remove(exportId) && pending.isEmpty()) {
            unscheduled.remove(df);
            df.schedule();
        }
    }

    private void allowCompaction(String id, Frontier frontier) {
        if (frontier.isEmpty()) {
            boundedExports.remove(id);
            earlyPeeks.remove(id);
        }
        Dataflow df = byExport.get(id);
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
        byExport.remove(id);
        registry.drop(id);
        Set<String> live = liveExports.get(df);
        live.remove(id);
        if (live.isEmpty()) {
            liveExports.remove(df);
            unscheduled.remove(df);
            df.drop();
        }
        report(id, Frontier.EMPTY);
    }

    private void startPeek(Peek peek) {
        UUID uuid = peek.uuid();
        if (peeks.containsKey(uuid)) {
            emit(new Status("duplicate_peek", uuid.toString(), "a peek with this uuid is already pending; the second was ignored"));
            return;
        }
        // A peek that must wait holds its read time on the target until it is answered (visible in
        // tandem_read_holds); one readable now reads a single immutable snapshot and needs no hold.
        Publication now = registry.current(peek.target());
        boolean readable = now.readableAt(peek.timestamp());
        MaintenanceReserve gate = reserve;
        // a peek readable now on the fast lane asks the reserve at once; one it refuses waits for a later tick below
        boolean asked = readable && fastLane != null && !mayAnswerEarly(peek);
        if (asked && (gate == null || gate.admitNow())) {
            // The common point read: readable now and admitted, answered by one task on the fast lane.
            SharedArrangement arr = now.arrangement();
            Disposable.Swap task = Disposables.swap();
            peeks.put(uuid, new PendingPeek(task, peekPath(peek.target()), resources.tickerNanos().getAsLong()));
            task.update(laneFor(peek, arr).schedule(() -> {
                PeekResult r;
                try {
                    r = answer(peek, arr);
                } catch (RuntimeException e) {
                    r = new ComputeResponse.Error(e.getMessage() == null ? e.toString() : e.getMessage());
                }
                respond(uuid, r);
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
        Mono<PeekResult> result;
        if (fastLane != null) {
            if (gate != null) {
                // a readable peek asked above and was not admitted in this tick; one that had to wait asks now
                ready = asked ? ready.delayUntil(arr -> gate.admitLater()) : ready.delayUntil(arr -> gate.admission());
            }
            result = ready.flatMap(arr -> Mono.fromCallable(() -> answer(peek, arr)).subscribeOn(laneFor(peek, arr)));
        } else {
            int w = Math.floorMod(nextPeekWorker.getAndIncrement(), pool.size());
            result = ready.flatMap(arr -> pool.call(w, () -> answer(peek, arr)));
        }
        result = result.doFinally(signal -> {
            ReadHold h = hold.getAndSet(null);
            if (h != null) {
                h.release();
            }
        });
        // Registered before subscribing, so an answer or a cancel that comes at once finds it.
        Disposable.Swap subscription = Disposables.swap();
        peeks.put(uuid, new PendingPeek(subscription, peekPath(peek.target()), resources.tickerNanos().getAsLong()));
        subscription.update(result
                .onErrorResume(e -> Mono.just(new ComputeResponse.Error(e.getMessage() == null ? e.toString() : e.getMessage())))
                .subscribe(r -> respond(uuid, r)));
        if (mayAnswerEarly(peek)) {
            // Whichever comes second, this or the dataflow's creation on the command thread, offers it.
            earlyPeeks.put(peek.target(), peek);
            Dataflow df = byExport.get(peek.target());
            if (df != null) {
                offerEarly(df, peek);
            }
        }
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

    /**
     * Whether {@code peek} could be answered before its target's output is complete: it reads a bounded
     * dataflow built for it, whole, with a limit (within the result size) and no order, so any rows
     * certainly in the result will do (whether its plan allows that is the dataflow's to say).
     */
    private boolean mayAnswerEarly(Peek peek) {
        Finishing f = peek.finishing();
        long maxRows = peek.maxResultRows() != null ? peek.maxResultRows() : parameters.maxResultRows();
        return boundedExports.contains(peek.target()) && peek.literalKeys() == null && peek.mfp().isIdentity()
                && f.orderBy().isEmpty() && f.limit() != null && f.limit() > 0 && f.limit() <= maxRows;
    }

    /**
     * Asks {@code df} to answer {@code peek} early. The answer's {@code upper} is the read time itself
     * (the output was not complete past it), which tells the controller it was cut short; the
     * dataflow has stopped by then, and the controller drops it as for any answer.
     */
    private void offerEarly(Dataflow df, Peek peek) {
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

    /**
     * The path a peek takes, for its metrics: "slow" when its target is exported by a dataflow this
     * runtime built for that read alone (a bounded one, with an {@code until}), else "fast" (an index,
     * maintained here or published by the maintenance runtime).
     */
    private String peekPath(String target) {
        return boundedExports.contains(target) ? "slow" : "fast";
    }

    private PeekResult answer(Peek peek, SharedArrangement arr) {
        Dataflow df = byExport.get(peek.target());
        return PeekServer.answer(peek, arr, parameters.maxResultRows(), role.tag(), df == null ? null : df.hydrated());
    }

    private void respond(UUID uuid, PeekResult result) {
        PendingPeek p = peeks.remove(uuid);
        if (p != null) {
            emit(new PeekResponse(uuid, result));
            observer.peekCompleted(role, p.path(), result instanceof ComputeResponse.Rows ? "rows" : "error", resources.tickerNanos().getAsLong() - p.startNanos());
        }
    }

    private void cancelPeek(UUID uuid) {
        PendingPeek p = peeks.remove(uuid);
        if (p != null) {
            p.subscription().dispose();
            emit(new PeekResponse(uuid, new ComputeResponse.Canceled()));
            observer.peekCompleted(role, p.path(), "canceled", resources.tickerNanos().getAsLong() - p.startNanos());
        }
    }

    private final DataflowListener listener = new DataflowListener() {
        @Override
        public void frontier(String id, Frontier upper) {
            report(id, upper);
        }

        @Override
        public void hydrated(Dataflow dataflow, long millis) {
            emit(new Status("hydrated", dataflow.id(), Long.toString(millis)));
            observer.dataflowHydrated(role, dataflow.id(), millis);
        }

        @Override
        public void failed(Dataflow dataflow, String message) {
            if (dataflow.exportIds().stream().noneMatch(boundedExports::contains)) {
                failed.put(dataflow.id(), new FailedDataflow(dataflow.id(), dataflow.asOf(), message));
            }
            emit(new Status("dataflow_failed", dataflow.id(), message));
            onCommandThread(() -> {
                for (String e : dataflow.exportIds()) {
                    if (byExport.get(e) == dataflow) {
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
            Dataflow df = byExport.get(id);
            emit(new Frontiers(id, upper, df == null ? upper : df.inputFrontier().join(upper)));
        }
    }

    private void emit(ComputeResponse r) {
        emitter.emit(r);
    }

    @Override
    public void close() {
        mirrors.forEach(Disposable::dispose);
        if (logging != null) {
            logging.close();
        }
        commands.dispose();
        commandScheduler.dispose();
        peeks.values().forEach(p -> p.subscription().dispose());
        for (Dataflow df : new ArrayList<>(liveExports.keySet())) {
            df.drop();
        }
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
