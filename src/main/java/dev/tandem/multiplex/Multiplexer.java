package dev.tandem.multiplex;

import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeCommand.AllowCompaction;
import dev.tandem.protocol.ComputeCommand.CancelPeek;
import dev.tandem.protocol.ComputeCommand.CreateDataflow;
import dev.tandem.protocol.ComputeCommand.Peek;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.ComputeResponse.Frontiers;
import dev.tandem.protocol.ComputeResponse.PeekResponse;
import dev.tandem.runtime.ComputeInstance;
import dev.tandem.runtime.ComputeRuntime;
import dev.tandem.runtime.ComputeRuntimeBuilder;
import dev.tandem.runtime.MaintenanceReserve;
import dev.tandem.runtime.Role;
import dev.tandem.runtime.SchedulerWorkerPool;
import dev.tandem.runtime.SerialEmitter;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * One controller endpoint in front of one ({@code SOLO}) or two ({@code MAINTENANCE} +
 * {@code INTERACTIVE}) runtimes.
 *
 * <h2>Routing</h2>
 * Lifecycle commands go to every runtime. A bounded dataflow (one with {@code until}, a transient
 * slow-path query) goes to the interactive runtime, a maintained one to maintenance; each export id
 * is then owned by the runtime that builds it. {@code Schedule} goes to the owner. {@code
 * AllowCompaction} goes to the owner and, for maintenance-owned ids, to the interactive runtime as
 * well, which advances its standing hold (invariant I1c); for an id nobody owns it goes to
 * maintenance, which ignores it safely. Peeks and cancels go to the interactive runtime.
 *
 * <h2>Merging</h2>
 * Both response streams merge into one. Each collection's frontiers pass only from the runtime that
 * owns it; exactly one {@code PeekResponse} per uuid passes (the first), and a peek of an id that does
 * not exist is answered here with an error. {@code Hello} resets the ownership state.
 *
 * <h2>Concurrency</h2>
 * {@link #send} is called by one controller thread at a time; responses arrive on the runtimes'
 * threads and are emitted under a lock, so the merged stream is serialized.
 */
public final class Multiplexer implements ComputeInstance {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Multiplexer.class);

    private final ComputeRuntime maintenance;
    private final ComputeRuntime interactive;
    private final Map<String, ComputeRuntime> owners = new ConcurrentHashMap<>();
    private final Set<UUID> outstanding = ConcurrentHashMap.newKeySet();
    private final Sinks.Many<ComputeResponse> out = Sinks.many().multicast().onBackpressureBuffer(1 << 20, false);
    private final SerialEmitter<ComputeResponse> emitter = new SerialEmitter<>(out);
    private final Disposable.Composite subscriptions = Disposables.composite();
    private final MaintenanceReserve reserve;
    private final AtomicLong suppressedFrontiers = new AtomicLong();

    /**
     * How the runtimes behind a multiplexer are tuned. The OS priorities, hydration lanes, fresh rounds and
     * maintenance reserve apply in two-runtime mode only: a solo runtime answers reads on its workers and is
     * left alone.
     *
     * @param dataflowMemoryBudget the memory budget of each dataflow, in both runtimes (bytes)
     * @param maintenanceNice the OS priority of maintenance's threads that keep hydrated indexes fresh (0: normal)
     * @param hydrationNice the OS priority of maintenance's hydrations and of the command thread that sets them up
     * @param hydrationLanes whether maintenance runs hydration rounds on lanes of their own
     * @param freshRoundUpdates the largest round (in table updates) of a hydrated, table-only dataflow that
     *     maintenance runs at normal priority (0: none)
     * @param maintenanceReserve the share of the CPU time maintenance wants that it keeps against reads when
     *     they saturate the machine, by holding back new peeks ({@link MaintenanceReserve}); 0 leaves reads
     *     first in every case. Needs Linux's per-thread scheduler statistics.
     */
    public record Tuning(long dataflowMemoryBudget, int maintenanceNice, int hydrationNice, boolean hydrationLanes,
                         long freshRoundUpdates, double maintenanceReserve) {

        /** Every setting at the runtimes' default: no budget, normal priority, lanes on, no reserve. */
        public static final Tuning DEFAULTS = new Tuning(ComputeRuntimeBuilder.UNLIMITED_MEMORY, 0, 0, true,
                SchedulerWorkerPool.DEFAULT_FRESH_ROUND_UPDATES, 0);

        public Tuning withDataflowMemoryBudget(long bytes) {
            return new Tuning(bytes, maintenanceNice, hydrationNice, hydrationLanes, freshRoundUpdates, maintenanceReserve);
        }
    }

    /**
     * Starts the compute side with {@link Tuning#DEFAULTS}: with {@code twoRuntimes}, a maintenance runtime
     * of {@code maintenanceWorkers} and an interactive runtime of {@code interactiveWorkers} sharing one
     * registry; otherwise one {@code SOLO} runtime.
     */
    public static Multiplexer start(boolean twoRuntimes, int maintenanceWorkers, int interactiveWorkers,
            dev.tandem.storage.TableStorage storage, dev.tandem.sharing.ArrangementSharingRegistry registry,
            dev.tandem.runtime.FatalErrorHandler fatal, java.util.function.LongSupplier clock, dev.tandem.runtime.RuntimeObserver observer) {
        return start(twoRuntimes, maintenanceWorkers, interactiveWorkers, storage, registry, fatal, clock, observer, Tuning.DEFAULTS);
    }

    /** Starts the compute side as the other {@code start} does, its runtimes tuned by {@code tuning}. */
    public static Multiplexer start(boolean twoRuntimes, int maintenanceWorkers, int interactiveWorkers,
            dev.tandem.storage.TableStorage storage, dev.tandem.sharing.ArrangementSharingRegistry registry,
            dev.tandem.runtime.FatalErrorHandler fatal, java.util.function.LongSupplier clock, dev.tandem.runtime.RuntimeObserver observer,
            Tuning tuning) {
        java.util.function.BiFunction<Role, Integer, ComputeRuntimeBuilder> runtime = (role, workers) -> ComputeRuntime.builder()
                .role(role).workers(workers).storage(storage).registry(registry).fatalErrorHandler(fatal).clock(clock).observer(observer)
                .dataflowMemoryBudget(tuning.dataflowMemoryBudget());
        if (!twoRuntimes) {
            return new Multiplexer(runtime.apply(Role.SOLO, maintenanceWorkers).build(), null, null);
        }
        // Reactor's shared timer threads (timeouts) start now, at normal priority, not from a lowered maintenance thread.
        dev.tandem.runtime.ThreadNice.startThreads(reactor.core.scheduler.Schedulers.parallel(), reactor.core.scheduler.Schedulers.DEFAULT_POOL_SIZE);
        ComputeRuntime m = runtime.apply(Role.MAINTENANCE, maintenanceWorkers).shareWithReader(true)
                .workerNice(tuning.maintenanceNice(), tuning.hydrationNice())
                .hydrationLanes(tuning.hydrationLanes())
                .freshRoundUpdates(tuning.freshRoundUpdates())
                .build();
        MaintenanceReserve reserve = reserve(tuning.maintenanceReserve());
        ComputeRuntime i = runtime.apply(Role.INTERACTIVE, interactiveWorkers).maintenanceReserve(reserve).build();
        return new Multiplexer(m, i, reserve);
    }

    /** The maintenance reserve of {@code share}, or null: off, or this platform has no per-thread scheduler statistics. */
    private static MaintenanceReserve reserve(double share) {
        if (share == 0) {
            return null;
        }
        if (!dev.tandem.runtime.KernelCpuTimes.available()) {
            LOG.warn("tandem.compute.maintenance-reserve={} has no effect: this platform has no per-thread scheduler statistics", share);
            return null;
        }
        return new MaintenanceReserve(share, new dev.tandem.runtime.KernelCpuTimes(), Runtime.getRuntime().availableProcessors());
    }

    /**
     * A multiplexer over a {@code SOLO} runtime ({@code interactive} null) or over two runtimes, the
     * interactive one admitting its peeks through {@code reserve} (null: none), which it then ticks.
     */
    private Multiplexer(ComputeRuntime maintenance, ComputeRuntime interactive, MaintenanceReserve reserve) {
        this.maintenance = maintenance;
        this.interactive = interactive;
        this.reserve = reserve;
        for (dev.tandem.runtime.Introspection.Collection c : dev.tandem.runtime.Introspection.ALL) {
            owners.put(c.id(), maintenance);
        }
        subscriptions.add(maintenance.responses().subscribe(r -> receive(maintenance, r)));
        if (interactive != null) {
            subscriptions.add(interactive.responses().subscribe(r -> receive(interactive, r)));
        }
        if (reserve != null) {
            // Its own thread (it reads /proc, which a non-blocking thread must not), started at normal priority: it admits reads.
            reactor.core.scheduler.Scheduler timer = reactor.core.scheduler.Schedulers.newSingle("tandem-maintenance-reserve", true);
            long tick = MaintenanceReserve.TICK.toNanos();
            subscriptions.add(dev.tandem.runtime.ThreadNice.atNormalPriority(
                    () -> timer.schedulePeriodically(reserve::tick, tick, tick, java.util.concurrent.TimeUnit.NANOSECONDS)));
            subscriptions.add(timer);
        }
    }

    /** The maintenance reserve in force, or null (off, or a single runtime). */
    public MaintenanceReserve maintenanceReserve() {
        return reserve;
    }

    public boolean twoRuntimes() {
        return interactive != null;
    }

    public ComputeRuntime maintenance() {
        return maintenance;
    }

    /** The runtime answering peeks: the interactive one, or the solo one. */
    public ComputeRuntime reader() {
        return interactive != null ? interactive : maintenance;
    }

    /** Frontier reports dropped because they came from a runtime that does not own the collection. */
    public long suppressedFrontiers() {
        return suppressedFrontiers.get();
    }

    /** Declares {@code id} owned by the runtime of {@code role} (e.g. introspection collections). */
    public void declareOwner(String id, Role role) {
        owners.put(id, role == Role.INTERACTIVE && interactive != null ? interactive : maintenance);
    }

    @Override
    public void send(ComputeCommand command) {
        switch (command) {
            case ComputeCommand.Hello h -> {
                owners.keySet().removeIf(id -> !dev.tandem.runtime.Introspection.isIntrospection(id));
                broadcast(command);
            }
            case ComputeCommand.CreateInstance c -> broadcast(command);
            case ComputeCommand.InitializationComplete i -> broadcast(command);
            case ComputeCommand.UpdateConfiguration u -> broadcast(command);
            case CreateDataflow c -> {
                ComputeRuntime owner = c.dataflow().until() != null && interactive != null ? interactive : maintenance;
                for (var e : c.dataflow().indexExports()) {
                    owners.putIfAbsent(e.id(), owner);
                }
                owner.send(command);
            }
            case ComputeCommand.Schedule s -> owners.getOrDefault(s.id(), maintenance).send(command);
            case AllowCompaction a -> {
                ComputeRuntime owner = owners.get(a.id());
                if (owner == null) {
                    maintenance.send(command);
                    return;
                }
                owner.send(command);
                if (owner == maintenance && interactive != null) {
                    interactive.send(command);
                }
            }
            case Peek p -> {
                if (!owners.containsKey(p.target())) {
                    emit(new PeekResponse(p.uuid(), new ComputeResponse.Error(ComputeResponse.ErrorKind.UNKNOWN_COLLECTION, "unknown collection " + p.target())));
                    return;
                }
                if (!outstanding.add(p.uuid())) {
                    emit(new ComputeResponse.Status(ComputeResponse.StatusKind.DUPLICATE_PEEK, p.uuid().toString(), "a peek with this uuid is already pending"));
                    return;
                }
                reader().send(command);
            }
            case CancelPeek c -> reader().send(command);
        }
    }

    private void broadcast(ComputeCommand command) {
        maintenance.send(command);
        if (interactive != null) {
            interactive.send(command);
        }
    }

    private void receive(ComputeRuntime from, ComputeResponse response) {
        switch (response) {
            case Frontiers f -> {
                if (owners.get(f.id()) != from) {
                    suppressedFrontiers.incrementAndGet();
                    return;
                }
                if (f.writeFrontier().isEmpty()) {
                    owners.remove(f.id());
                }
                emit(f);
            }
            case PeekResponse p -> {
                if (outstanding.remove(p.uuid())) {
                    emit(p);
                }
            }
            case ComputeResponse.Status s -> {
                if (s.kind() == ComputeResponse.StatusKind.DATAFLOW_REJECTED && s.id() != null && owners.get(s.id()) == from) {
                    owners.remove(s.id());
                }
                emit(s);
            }
        }
    }

    private void emit(ComputeResponse r) {
        emitter.emit(r);
    }

    /** Responses that could not be emitted on the merged stream (a subscriber gone or overflowing). */
    public long emitFailures() {
        return emitter.failures();
    }

    @Override
    public Flux<ComputeResponse> responses() {
        return out.asFlux();
    }

    @Override
    public void close() {
        subscriptions.dispose();
        if (interactive != null) {
            interactive.close();
        }
        maintenance.close();
        emitter.complete();
    }
}
