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
import dev.tandem.runtime.Role;
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
    private volatile dev.tandem.runtime.MaintenanceReserve reserve;
    private final AtomicLong suppressedFrontiers = new AtomicLong();

    /**
     * Starts the compute side: with {@code twoRuntimes}, a maintenance runtime of
     * {@code maintenanceWorkers} and an interactive runtime of {@code interactiveWorkers} sharing one
     * registry; otherwise one {@code SOLO} runtime.
     */
    public static Multiplexer start(boolean twoRuntimes, int maintenanceWorkers, int interactiveWorkers,
            dev.tandem.storage.TableStorage storage, dev.tandem.sharing.ArrangementSharingRegistry registry,
            dev.tandem.runtime.FatalErrorHandler fatal, java.util.function.LongSupplier clock, dev.tandem.runtime.RuntimeObserver observer) {
        if (!twoRuntimes) {
            return new Multiplexer(ComputeRuntime.create(Role.SOLO, maintenanceWorkers, storage, registry, false, fatal, clock, observer), null);
        }
        // Reactor's shared timer threads (timeouts) start now, at normal priority, not from a lowered maintenance thread.
        dev.tandem.runtime.ThreadNice.startThreads(reactor.core.scheduler.Schedulers.parallel(), reactor.core.scheduler.Schedulers.DEFAULT_POOL_SIZE);
        ComputeRuntime m = ComputeRuntime.create(Role.MAINTENANCE, maintenanceWorkers, storage, registry, true, fatal, clock, observer);
        ComputeRuntime i = ComputeRuntime.create(Role.INTERACTIVE, interactiveWorkers, storage, registry, false, fatal, clock, observer);
        return new Multiplexer(m, i);
    }

    /** A multiplexer over a {@code SOLO} runtime ({@code interactive} null) or over two runtimes. */
    public Multiplexer(ComputeRuntime maintenance, ComputeRuntime interactive) {
        this.maintenance = maintenance;
        this.interactive = interactive;
        for (dev.tandem.runtime.Introspection.Collection c : dev.tandem.runtime.Introspection.ALL) {
            owners.put(c.id(), maintenance);
        }
        subscriptions.add(maintenance.responses().subscribe(r -> receive(maintenance, r)));
        if (interactive != null) {
            subscriptions.add(interactive.responses().subscribe(r -> receive(interactive, r)));
        }
    }

    /** Sets the memory budget of each dataflow created from now on, in both runtimes (bytes). */
    /**
     * In two-runtime mode, lowers the OS priority of maintenance's threads, so a saturated CPU serves reads
     * first: to {@code nice} for the rounds that keep hydrated indexes fresh, to {@code hydrationNice} for
     * hydrations and the command thread that sets them up. A solo runtime answers reads on its workers and
     * is left alone.
     */
    public void setMaintenanceNice(int nice, int hydrationNice) {
        if (interactive != null) {
            maintenance.setWorkerNice(nice, hydrationNice);
        }
    }

    /**
     * In two-runtime mode, keeps maintenance {@code reserve} of the CPU time it wants against reads when they
     * saturate the machine, by holding back new peeks ({@link dev.tandem.runtime.MaintenanceReserve}); 0 leaves
     * reads first in every case. Needs Linux's per-thread scheduler statistics.
     */
    public void setMaintenanceReserve(double reserve) {
        if (interactive == null || reserve == 0) {
            return;
        }
        if (!dev.tandem.runtime.KernelCpuTimes.available()) {
            LOG.warn("tandem.compute.maintenance-reserve={} has no effect: this platform has no per-thread scheduler statistics", reserve);
            return;
        }
        var r = new dev.tandem.runtime.MaintenanceReserve(reserve, new dev.tandem.runtime.KernelCpuTimes(),
                Runtime.getRuntime().availableProcessors());
        interactive.setMaintenanceReserve(r);
        this.reserve = r;
        // Its own thread (it reads /proc, which a non-blocking thread must not), started at normal priority: it admits reads.
        reactor.core.scheduler.Scheduler timer = reactor.core.scheduler.Schedulers.newSingle("tandem-maintenance-reserve", true);
        long tick = dev.tandem.runtime.MaintenanceReserve.TICK.toNanos();
        subscriptions.add(dev.tandem.runtime.ThreadNice.atNormalPriority(
                () -> timer.schedulePeriodically(r::tick, tick, tick, java.util.concurrent.TimeUnit.NANOSECONDS)));
        subscriptions.add(timer);
    }

    /** The maintenance reserve in force, or null (off, or a single runtime). */
    public dev.tandem.runtime.MaintenanceReserve maintenanceReserve() {
        return reserve;
    }

    /** In two-runtime mode, whether maintenance runs hydration rounds on lanes of their own (before any dataflow). */
    public void setHydrationLanes(boolean lanes) {
        if (interactive != null) {
            maintenance.setHydrationLanes(lanes);
        }
    }

    /**
     * In two-runtime mode, the largest round (in table updates) of a hydrated, table-only dataflow that
     * maintenance runs at normal priority (0: none); before any dataflow.
     */
    public void setFreshRoundUpdates(long updates) {
        if (interactive != null) {
            maintenance.setFreshRoundUpdates(updates);
        }
    }

    public void setDataflowMemoryBudget(long bytes) {
        maintenance.setDataflowMemoryBudget(bytes);
        if (interactive != null) {
            interactive.setDataflowMemoryBudget(bytes);
        }
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
                    emit(new ComputeResponse.Status("duplicate_peek", p.uuid().toString(), "a peek with this uuid is already pending"));
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
                if ("dataflow_rejected".equals(s.kind()) && s.id() != null && owners.get(s.id()) == from) {
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
