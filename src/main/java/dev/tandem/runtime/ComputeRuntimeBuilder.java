package dev.tandem.runtime;

import dev.tandem.render.MemoryBudget;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.storage.TableStorage;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Configures and makes a {@link ComputeRuntime} ({@link ComputeRuntime#builder()}): the role, storage and
 * sharing registry must be given; every other setting has a default. {@link #build} checks the settings
 * together, once, and starts the runtime's threads.
 */
public final class ComputeRuntimeBuilder {

    /** The default dataflow memory budget: none. */
    public static final long UNLIMITED_MEMORY = MemoryBudget.UNLIMITED;

    Role role;
    int workers = 1;
    TableStorage storage;
    ArrangementSharingRegistry registry;
    boolean shareWithReader;
    FatalErrorHandler fatal = FatalErrorHandler.HALT;
    private LongSupplier clock;
    private RuntimeResources resources;
    RuntimeObserver observer = RuntimeObserver.NONE;
    long dataflowMemoryBudget = UNLIMITED_MEMORY;
    int nice;
    int hydrationNice;
    /** Null: not set (the pool's default). */
    Boolean hydrationLanes;
    /** Null: not set (the pool's default). */
    Long freshRoundUpdates;
    MaintenanceReserve maintenanceReserve;

    ComputeRuntimeBuilder() {
    }

    /** What the runtime does: everything, maintain indexes, or answer reads. */
    public ComputeRuntimeBuilder role(Role role) {
        this.role = role;
        return this;
    }

    /** Its workers (default 1): the maintained dataflows' pool, or the interactive fast lane's and slow lane's threads. */
    public ComputeRuntimeBuilder workers(int workers) {
        this.workers = workers;
        return this;
    }

    public ComputeRuntimeBuilder storage(TableStorage storage) {
        this.storage = storage;
        return this;
    }

    public ComputeRuntimeBuilder registry(ArrangementSharingRegistry registry) {
        this.registry = registry;
        return this;
    }

    /** Publishes every export with a standing hold for the interactive runtime (maintenance in two-runtime mode); default off. */
    public ComputeRuntimeBuilder shareWithReader(boolean share) {
        this.shareWithReader = share;
        return this;
    }

    /** Told of an error that escapes a runtime thread; default {@link FatalErrorHandler#HALT}. */
    public ComputeRuntimeBuilder fatalErrorHandler(FatalErrorHandler fatal) {
        this.fatal = fatal;
        return this;
    }

    /** The wall clock of the runtime, with production resources over it ({@link RuntimeResources#of}); default the system's. */
    public ComputeRuntimeBuilder clock(LongSupplier clockMillis) {
        this.clock = clockMillis;
        return this;
    }

    /** The time, schedulers and intervals of the runtime (instead of a {@link #clock}). */
    public ComputeRuntimeBuilder resources(RuntimeResources resources) {
        this.resources = resources;
        return this;
    }

    /** Told what the runtime measures; default {@link RuntimeObserver#NONE}. */
    public ComputeRuntimeBuilder observer(RuntimeObserver observer) {
        this.observer = observer;
        return this;
    }

    /** The memory budget of each dataflow the runtime builds, in bytes; default {@link #UNLIMITED_MEMORY}. */
    public ComputeRuntimeBuilder dataflowMemoryBudget(long bytes) {
        this.dataflowMemoryBudget = bytes;
        return this;
    }

    /**
     * Lowers the OS priority (0: normal; see {@link ThreadNice}) of the runtime's workers and its
     * introspection logging to {@code nice}, and of its hydration lanes and its command thread (which
     * builds new dataflows' table snapshots) to {@code hydrationNice}; default 0 and 0. Not for the
     * interactive runtime, whose threads answer reads.
     */
    public ComputeRuntimeBuilder workerNice(int nice, int hydrationNice) {
        this.nice = nice;
        this.hydrationNice = hydrationNice;
        return this;
    }

    /** Whether hydration rounds run on lanes of their own; default on (a maintenance runtime's only). */
    public ComputeRuntimeBuilder hydrationLanes(boolean lanes) {
        this.hydrationLanes = lanes;
        return this;
    }

    /**
     * The largest round (in table updates) of a hydrated dataflow reading tables only that runs on a
     * fresh lane, at normal priority; 0: none (a maintenance runtime's only; default
     * {@link SchedulerWorkerPool#DEFAULT_FRESH_ROUND_UPDATES}).
     */
    public ComputeRuntimeBuilder freshRoundUpdates(long updates) {
        this.freshRoundUpdates = updates;
        return this;
    }

    /**
     * Admits the runtime's new fast-path peeks through {@code reserve}'s budget, so that maintenance keeps
     * its reserved share of the CPU under a flood of reads (an interactive runtime's only; default none).
     */
    public ComputeRuntimeBuilder maintenanceReserve(MaintenanceReserve reserve) {
        this.maintenanceReserve = reserve;
        return this;
    }

    /** Checks the settings and makes the runtime, starting its threads. */
    public ComputeRuntime build() {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(fatal, "fatalErrorHandler");
        Objects.requireNonNull(observer, "observer");
        require(workers >= 1, "workers must be 1 or more, got " + workers);
        require(dataflowMemoryBudget > 0, "a dataflow memory budget must be positive, got " + dataflowMemoryBudget);
        require(nice >= 0 && hydrationNice >= 0, "nice values must be 0 (normal priority) or more, got " + nice + " and " + hydrationNice);
        require(role != Role.INTERACTIVE || nice == 0 && hydrationNice == 0, "the interactive runtime's threads answer reads at normal priority");
        require(role == Role.MAINTENANCE || hydrationLanes == null && freshRoundUpdates == null,
                "hydration and fresh lanes are a maintenance runtime's only, not for role " + role.tag());
        require(freshRoundUpdates == null || freshRoundUpdates >= 0, "fresh round updates must be 0 (none) or more, got " + freshRoundUpdates);
        require(role == Role.INTERACTIVE || maintenanceReserve == null, "a maintenance reserve admits an interactive runtime's peeks");
        require(clock == null || resources == null, "give the runtime a clock or its resources, not both");
        return new ComputeRuntime(this, resources != null ? resources : RuntimeResources.of(clock != null ? clock : System::currentTimeMillis));
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
