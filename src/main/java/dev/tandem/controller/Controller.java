package dev.tandem.controller;

import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.Mfp;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.protocol.Finishing;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.Introspection;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.TableStorage;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The built-in controller of standalone mode: the durable catalog of tables, views and indexes, the
 * choice of read timestamps, read policies (compaction windows and read holds) and admission control,
 * in front of the compute replica (a {@link Multiplexer}).
 *
 * <p>Reads are planned here: an MFP over one indexed collection is a fast-path peek of the index; any
 * other read is a slow-path transient dataflow ({@code t} id, {@code as_of = t}, {@code until = t+1})
 * that imports the indexes it can as shared arrangements, is peeked once, then dropped.
 *
 * <p>Catalog changes block on durable storage and are serialized; call them off event-loop threads.
 * Reads are asynchronous. While a peek is in flight its read time is held on its inputs; a timed-out
 * peek is canceled before its hold is released.
 */
public final class Controller implements AutoCloseable {

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** How often table compaction frontiers advance (the index ticker runs every 50 ms). */
    private static final long TABLE_COMPACTION_EVERY_MS = 1000;
    /** How far beyond the present an explicit {@code as_of} may lie; further is refused, not waited for. */
    static final long MAX_AS_OF_AHEAD_MS = 3_600_000;
    /** The longest a read may ask to wait ({@code timeout_ms}). */
    static final long MAX_TIMEOUT_MS = 600_000;

    private final TableStorage storage;
    private final Multiplexer compute;
    private final ArrangementSharingRegistry registry;
    private final LongSupplier clock;
    private final Catalog catalog;
    private final AtomicReference<ControllerSettings> settings;
    private final Map<String, IndexState> indexes = new ConcurrentHashMap<>();
    private final Scheduler timer;
    /** The introspection collections, served like indexes but not in the durable catalog. */
    private final Map<String, CatalogEntry.Index> system = new LinkedHashMap<>();
    private final Map<String, Holds> tableHolds = new ConcurrentHashMap<>();
    /** Tables that only their feeder writes to (sources), by name, with why users may not write or drop them. */
    private final Map<String, String> fedTables = new ConcurrentHashMap<>();
    private final Map<UUID, Sinks.One<ComputeResponse.PeekResult>> peeks = new ConcurrentHashMap<>();
    /** The peek waiting on each transient dataflow, by transient id. */
    private final Map<String, UUID> transientPeeks = new ConcurrentHashMap<>();
    /** The transient dataflows change streams own, by transient id. */
    private final Map<String, StreamDataflow> streamDataflows = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong droppedEvents = new java.util.concurrent.atomic.AtomicLong();
    private final Sinks.Many<ControllerEvent> events = Sinks.many().multicast().directBestEffort();
    private final Object sendLock = new Object();
    private final Disposable responses;
    private final Disposable ticker;
    /**
     * Makes choosing a read time over several inputs (a slow-path read) and holding it atomic with respect
     * to {@link #compact()}. A fast-path read takes no lock: it chooses and holds its time with
     * {@link HeldFrontier#chooseAndHold}, which agrees with compaction through the order of its reads and writes.
     */
    private final Object policyLock = new Object();
    private long lastTableCompaction = Long.MIN_VALUE / 2;
    private volatile List<String> recovering = List.of();

    public Controller(TableStorage storage, Multiplexer compute, ArrangementSharingRegistry registry, ControllerSettings settings,
            LongSupplier clock, Scheduler timer) {
        this.storage = storage;
        this.compute = compute;
        this.registry = registry;
        this.clock = clock;
        this.timer = timer;
        this.catalog = new Catalog(storage);
        this.settings = new AtomicReference<>(settings);
        this.responses = compute.responses().subscribe(this::receive);
        send(new ComputeCommand.Hello(UUID.randomUUID().toString()));
        send(new ComputeCommand.CreateInstance(Map.of(), new ComputeParameters(settings.maxResultRows())));
        for (Introspection.Collection c : Introspection.ALL) {
            CatalogEntry.Index entry = new CatalogEntry.Index(c.id(), c.name(), c.name(), List.of(c.schema().column(0).name()), c.schema(),
                    CatalogEntry.Index.DEFAULT_WINDOW);
            system.put(c.name(), entry);
            indexes.put(c.id(), new IndexState(entry, IndexState.SYSTEM_AS_OF));
        }
        List<CatalogEntry.Index> recovered = catalog.recover().stream().filter(i -> catalog.failure(i.name()) == null).toList();
        for (CatalogEntry.Index i : recovered) {
            startIndex(i);
        }
        recovering = recovered.stream().map(CatalogEntry.Index::id).toList();
        send(new ComputeCommand.InitializationComplete());
        this.ticker = Flux.interval(Duration.ofMillis(50), timer).subscribe(x -> compact());
    }

    /**
     * Sends a command. Commands that change the instance go out one at a time, in the order they were
     * decided; peeks and their cancels need no order among themselves or with those (a peek finds its
     * target through the sharing registry) and skip the lock, so a read never waits behind another
     * thread's send — nor behind that thread being descheduled while it holds the lock.
     */
    private void send(ComputeCommand command) {
        if (command instanceof ComputeCommand.Peek || command instanceof ComputeCommand.CancelPeek) {
            compute.send(command);
            return;
        }
        synchronized (sendLock) {
            compute.send(command);
        }
    }

    // ------------------------------------------------------------------ settings and status

    public ControllerSettings settings() {
        return settings.get();
    }

    /** Applies new live settings; the result-size limit reaches the replica too. */
    public void updateSettings(ControllerSettings next) {
        settings.set(next);
        send(new ComputeCommand.UpdateConfiguration(new ComputeParameters(next.maxResultRows())));
    }

    /** Whether every index recovered at start-up has hydrated (readiness). */
    public boolean ready() {
        for (String id : recovering) {
            IndexState s = indexes.get(id);
            if (s != null && !s.hydrated) {
                return false;
            }
        }
        return true;
    }

    public int pendingReads() {
        return pending.get();
    }

    public boolean twoRuntimes() {
        return compute.twoRuntimes();
    }

    /**
     * Index events. Each subscriber gets its own bounded buffer (oldest dropped first when it falls far
     * behind), so the shared sink never skips a subscriber that is merely between requests.
     */
    public Flux<ControllerEvent> events() {
        return events.asFlux().onBackpressureBuffer(4096, dropped -> droppedEvents.incrementAndGet(),
                reactor.core.publisher.BufferOverflowStrategy.DROP_OLDEST);
    }

    // ------------------------------------------------------------------ catalog

    public synchronized CatalogEntry.Table createTable(String name, List<Column> columns) {
        checkName(name);
        if (columns == null || columns.isEmpty()) {
            throw ControllerException.invalid("a table needs at least one column");
        }
        Schema schema;
        try {
            schema = new Schema(columns);
        } catch (IllegalArgumentException e) {
            throw ControllerException.invalid(e.getMessage());
        }
        for (Column c : columns) {
            checkName(c.name());
        }
        String id = catalog.allocateUserId();
        storage.createTable(id, schema);
        CatalogEntry.Table t = new CatalogEntry.Table(id, name, schema);
        catalog.put(t);
        return t;
    }

    /** Creates a view of {@code plan} (by names); {@code columnNames} null names its columns after the plan's. */
    public synchronized CatalogEntry.View createView(String name, Plan plan, List<String> columnNames) {
        checkName(name);
        if (plan == null) {
            throw ControllerException.invalid("plan: a plan is required");
        }
        List<DatumType> types = typeByName(plan, "plan");
        List<String> names = columnNames != null ? columnNames : defaultNames(plan, types.size());
        if (names.size() != types.size()) {
            throw ControllerException.invalid("columns: the plan has " + types.size() + " columns, " + names.size() + " names given");
        }
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add(new Column(names.get(i), types.get(i), true));
        }
        Schema schema;
        try {
            schema = new Schema(cols);
        } catch (IllegalArgumentException e) {
            throw ControllerException.invalid("columns: " + e.getMessage());
        }
        CatalogEntry.View v = new CatalogEntry.View(catalog.allocateUserId(), name, plan, schema);
        catalog.put(v);
        return v;
    }

    /** Creates an index on a table or view by key column names (or positions); it hydrates asynchronously. */
    public synchronized CatalogEntry.Index createIndex(String name, String on, List<String> key, Long windowMillis) {
        checkName(name);
        CatalogEntry target = catalog.require(on);
        if (target instanceof CatalogEntry.Index) {
            throw ControllerException.invalid("on: '" + on + "' is an index; index a table or a view");
        }
        if (key == null || key.isEmpty()) {
            throw ControllerException.invalid("key: an index needs at least one key column");
        }
        List<String> keyNames = new ArrayList<>();
        for (String k : key) {
            keyNames.add(target.schema().column(columnIndex(target.schema(), k, "key")).name());
        }
        if (windowMillis != null && windowMillis < 0) {
            throw ControllerException.invalid("compaction_window_ms must not be negative");
        }
        long window = windowMillis != null ? windowMillis : CatalogEntry.Index.DEFAULT_WINDOW;
        CatalogEntry.Index idx = new CatalogEntry.Index(catalog.allocateUserId(), name, on, keyNames, target.schema(), window);
        catalog.put(idx);
        startIndex(idx);
        return idx;
    }

    public synchronized void drop(String name, Class<? extends CatalogEntry> kind) {
        CatalogEntry e = catalog.require(name);
        if (!kind.isInstance(e)) {
            throw ControllerException.notFound("'" + name + "' is not a " + kind.getSimpleName().toLowerCase());
        }
        String fed = e instanceof CatalogEntry.Table ? fedTables.get(name) : null;
        if (fed != null) {
            throw ControllerException.conflict(fed);
        }
        List<String> dependents = catalog.dependents(name);
        if (!dependents.isEmpty()) {
            throw ControllerException.conflict("'" + name + "' is used by " + String.join(", ", dependents) + "; drop them first");
        }
        // Change streams reading it through dataflows of their own end first, saying why.
        for (Map.Entry<String, StreamDataflow> s : List.copyOf(streamDataflows.entrySet())) {
            if (s.getValue().inputs.contains(name)) {
                endTransientStream(s.getKey(), kindOf(e) + " '" + name + "' was dropped; the change stream of " + s.getValue().label
                        + " ends here");
            }
        }
        switch (e) {
            case CatalogEntry.Table t -> {
                catalog.remove(t);
                storage.dropTable(t.id());
            }
            case CatalogEntry.View v -> catalog.remove(v);
            case CatalogEntry.Index i -> {
                catalog.remove(i);
                indexes.remove(i.id());
                send(new ComputeCommand.AllowCompaction(i.id(), Frontier.EMPTY));
            }
        }
    }

    public List<CatalogEntry> catalog() {
        return catalog.all();
    }

    /** The names of the views and indexes that read {@code name} directly. */
    public List<String> dependents(String name) {
        return catalog.dependents(name);
    }

    /**
     * Marks table {@code name} as fed by something other than user writes (a source): writes to it and
     * drops of it are refused (409) with {@code reason}; {@code reason} null lifts the mark.
     */
    public void feedTable(String name, String reason) {
        if (reason == null) {
            fedTables.remove(name);
        } else {
            fedTables.put(name, reason);
        }
    }

    /** The introspection collections with their current status. */
    public List<IndexStatus> introspection() {
        return system.keySet().stream().map(this::indexStatus).toList();
    }

    /** Reads an introspection collection; serializable unless the request says otherwise. */
    public Mono<ReadResult> readIntrospection(String name, ReadRequest req) {
        if (!system.containsKey(name)) {
            return Mono.error(ControllerException.notFound("no introspection collection named '" + name + "'; they are " + system.keySet()));
        }
        return read(new ReadRequest(name, null, req.keys(), req.mfp(), req.finishing(), req.isolation(), req.asOf(), req.timeoutMs()));
    }

    /** Introspection collection {@code name}, as an index (not found: 404). */
    public CatalogEntry.Index introspectionEntry(String name) {
        CatalogEntry.Index i = system.get(name);
        if (i == null) {
            throw ControllerException.notFound("no introspection collection named '" + name + "'; they are " + system.keySet());
        }
        return i;
    }

    public CatalogEntry entry(String name) {
        return catalog.require(name);
    }

    /** What a read or change stream {@code from} names: an introspection collection or a catalog object (else 404). */
    public CatalogEntry readable(String name) {
        return system.containsKey(name) ? system.get(name) : catalog.require(name);
    }

    public IndexStatus indexStatus(String name) {
        CatalogEntry e = system.containsKey(name) ? system.get(name) : catalog.require(name);
        if (!(e instanceof CatalogEntry.Index i)) {
            throw ControllerException.notFound("'" + name + "' is not an index");
        }
        IndexState s = indexes.get(i.id());
        Publication p = registry.current(i.id());
        long records = p.published() ? p.arrangement().snapshot().records() : 0;
        String failure = catalog.failure(i.name());
        return new IndexStatus(i.id(), i.name(), i.on(), i.key(), failure == null ? (s != null && s.hydrated ? "hydrated" : "hydrating") : "failed",
                failure, s != null && s.hydrated, s == null ? Frontier.MIN : s.upper,
                s == null ? Frontier.MIN : s.reads.since(), records, s == null ? 0 : s.asOf, windowOf(i));
    }

    /**
     * Marks an index whose dataflow failed (e.g. over its memory budget) as failed, durably, so that it
     * is shown as such and not re-hydrated in a loop after a restart; dropping it clears the mark.
     */
    private void indexFailed(CatalogEntry.Index index, String error) {
        timer.schedule(() -> {
            synchronized (this) {
                if (catalog.get(index.name()).filter(e -> e.id().equals(index.id())).isPresent()) {
                    catalog.markFailed(index, error);
                    indexes.remove(index.id());
                }
            }
        });
    }

    private void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw ControllerException.invalid("name '" + name + "' is not valid: use letters, digits and _, starting with a letter or _ (at most 63)");
        }
        if (catalog.get(name).isPresent() || system.containsKey(name)) {
            throw ControllerException.conflict("'" + name + "' already exists");
        }
    }

    // ------------------------------------------------------------------ writes

    /**
     * Table {@code table}, if users may write to it: not found (404), not a table (422) and fed by a
     * source (409) are refused.
     */
    public CatalogEntry.Table writableTable(String table) {
        CatalogEntry e = catalog.require(table);
        if (!(e instanceof CatalogEntry.Table t)) {
            throw ControllerException.invalid("'" + table + "' is a " + kindOf(e) + "; only tables accept writes");
        }
        String fed = fedTables.get(table);
        if (fed != null) {
            throw ControllerException.conflict(fed);
        }
        return t;
    }

    /**
     * Writes rows (of the table's schema) to a table; completes with the write's timestamp once it is
     * durable.
     */
    public Mono<Long> write(String table, List<RowDiff> diffs) {
        CatalogEntry.Table t = writableTable(table);
        if (diffs.isEmpty()) {
            throw ControllerException.invalid("a write needs rows in 'insert' or 'delete'");
        }
        // the storage names tables by id; the user named it
        return storage.write(t.id(), diffs).onErrorMap(IllegalArgumentException.class, x -> ControllerException.invalid(
                x.getMessage().replace("table '" + t.id() + "'", "table '" + t.name() + "'")));
    }

    private static String kindOf(CatalogEntry e) {
        return e.getClass().getSimpleName().toLowerCase();
    }

    // ------------------------------------------------------------------ indexes and read policies

    /** Per-index state the controller tracks from the replica's reports. */
    private static final class IndexState {
        final CatalogEntry.Index index;
        final long asOf;
        /** The index's compaction frontier and the read holds that keep it back. */
        final HeldFrontier reads;
        volatile Frontier upper;
        volatile boolean hydrated;
        /** Completes at compute's first frontier report for this index. */
        final Sinks.Empty<Void> firstFrontier = Sinks.empty();
        /** An introspection collection's state starts with no as_of of its own ({@link #SYSTEM_AS_OF}). */
        static final long SYSTEM_AS_OF = 0;

        volatile boolean reported;

        boolean awaitingFirstFrontier() {
            return asOf == SYSTEM_AS_OF && !reported;
        }

        IndexState(CatalogEntry.Index index, long asOf) {
            this.index = index;
            this.asOf = asOf;
            this.upper = Frontier.at(asOf);
            this.reads = new HeldFrontier(Frontier.at(asOf));
        }
    }

    private void startIndex(CatalogEntry.Index idx) {
        Expansion x = new Expansion(false);
        Plan plan = x.expand(Plan.getByName(idx.on()), "on");
        Schema schema = idx.schema();
        List<Integer> key = new ArrayList<>();
        for (String k : idx.key()) {
            key.add(schema.indexOf(k));
        }
        long asOf = x.readableTime();
        DataflowDescription desc = new DataflowDescription(x.sources, x.imports,
                List.of(new DataflowDescription.BuildDesc("o_" + idx.id(), plan)),
                List.of(new DataflowDescription.IndexExport(idx.id(), "o_" + idx.id(), key)), asOf, null);
        IndexState state = new IndexState(idx, asOf);
        indexes.put(idx.id(), state);
        send(new ComputeCommand.CreateDataflow(desc));
        send(new ComputeCommand.Schedule(idx.id()));
    }

    private void receive(ComputeResponse r) {
        switch (r) {
            case ComputeResponse.Frontiers f -> {
                IndexState s = indexes.get(f.id());
                if (s == null) {
                    return;
                }
                if (f.writeFrontier().compareTo(s.upper) > 0) {
                    s.upper = f.writeFrontier();
                }
                if (!s.reported) {
                    if (s.asOf == IndexState.SYSTEM_AS_OF && !f.writeFrontier().isEmpty()) {
                        // The first upper reported is at or after the logging dataflow's as_of, where
                        // its compaction frontier starts: no read may choose an earlier time.
                        synchronized (policyLock) {
                            s.reads.raise(f.writeFrontier());
                        }
                    }
                    s.reported = true;
                    s.firstFrontier.tryEmitEmpty();
                }
                boolean wasHydrated = s.hydrated;
                s.hydrated = s.upper.compareTo(Frontier.at(s.asOf)) > 0;
                StreamDataflow stream = streamDataflows.get(f.id());
                if (stream != null) {
                    // A change stream's own dataflow reads its inputs itself once it has hydrated.
                    if (s.hydrated) {
                        stream.releaseInputs();
                    }
                    return;
                }
                publish(new ControllerEvent(wasHydrated || !s.hydrated ? "frontier" : "hydrated", s.index.name(), s.index.id(),
                        s.upper, s.hydrated, null));
            }
            case ComputeResponse.PeekResponse p -> {
                Sinks.One<ComputeResponse.PeekResult> sink = peeks.remove(p.uuid());
                if (sink != null) {
                    sink.tryEmitValue(p.result());
                }
            }
            case ComputeResponse.Status s -> {
                if ("dataflow_failed".equals(s.kind()) || "dataflow_rejected".equals(s.kind())) {
                    // A slow-path query whose transient dataflow the replica refused or abandoned fails at once.
                    UUID waiting = s.id() == null ? null : transientPeeks.remove(s.id());
                    Sinks.One<ComputeResponse.PeekResult> sink = waiting == null ? null : peeks.remove(waiting);
                    if (sink != null) {
                        sink.tryEmitValue(new ComputeResponse.Error(ComputeResponse.ErrorKind.FAILED, "the query could not run: " + s.detail()));
                    }
                    StreamDataflow df = s.id() == null ? null : streamDataflows.get(s.id());
                    if (df != null) {
                        String id = s.id();
                        df.endReason = "the change stream of " + df.label + " failed: " + s.detail();
                        endTransientStreamLater(id);
                    }
                    publish(new ControllerEvent(s.kind(), null, s.id(), null, false, s.detail()));
                    IndexState failed = s.id() == null ? null : indexes.get(s.id());
                    if (failed != null && "dataflow_failed".equals(s.kind()) && !system.containsKey(failed.index.name())) {
                        indexFailed(failed.index, s.detail());
                    }
                }
            }
        }
    }

    /**
     * Emits an event to the subscribers that keep up; events are advisory (the next frontier supersedes
     * the last), so one a slow subscriber cannot take is dropped for it and counted.
     */
    private void publish(ControllerEvent event) {
        synchronized (events) {
            Sinks.EmitResult r = events.tryEmitNext(event);
            if (r.isFailure() && r != Sinks.EmitResult.FAIL_ZERO_SUBSCRIBER) {
                droppedEvents.incrementAndGet();
            }
        }
    }

    /** Events a subscriber was too slow to take. */
    public long droppedEvents() {
        return droppedEvents.get();
    }

    /** The index's compaction window: its own if it was created with one, else the live default. */
    private long windowOf(CatalogEntry.Index index) {
        return index.windowMillis() != CatalogEntry.Index.DEFAULT_WINDOW ? index.windowMillis() : settings.get().compactionWindow().toMillis();
    }

    /**
     * Advances every index's compaction frontier to its window behind the upper, but never past a hold;
     * under {@code policyLock} (and each index's {@code holds}), so a read's time and its hold are taken
     * with no compaction in between. Tables (whose log compaction is coarse anyway) are visited at most once a second.
     */
    private void compact() {
        synchronized (policyLock) {
            for (IndexState s : indexes.values()) {
                if (s.upper.isEmpty() || !s.hydrated) {
                    continue;
                }
                Frontier next = s.reads.compactTo(s.upper.time() - 1 - windowOf(s.index));
                if (next != null) {
                    send(new ComputeCommand.AllowCompaction(s.index.id(), next));
                }
            }
            long now = clock.getAsLong();
            if (now - lastTableCompaction < TABLE_COMPACTION_EVERY_MS) {
                return;
            }
            lastTableCompaction = now;
            compactTables();
        }
    }

    private void compactTables() {
        long window = settings.get().compactionWindow().toMillis();
        long hydrating = Long.MAX_VALUE;
        for (IndexState s : indexes.values()) {
            if (!s.hydrated) {
                hydrating = Math.min(hydrating, s.asOf);
            }
        }
        for (String table : storage.tables()) {
            Frontier upper = storage.upper(table);
            if (upper.isEmpty()) {
                continue;
            }
            Holds h = tableHolds.get(table);
            long target = Math.min(Math.min(upper.time() - 1 - window, h == null ? Long.MAX_VALUE : h.min()), hydrating);
            if (target > storage.since(table).time()) {
                storage.allowCompaction(table, Frontier.at(target));
            }
        }
    }

    // ------------------------------------------------------------------ reads

    /** Answers a read: a fast-path peek of an index when it can, else a slow-path transient dataflow. */
    public Mono<ReadResult> read(ReadRequest req) {
        return Mono.defer(() -> {
            if (pending.incrementAndGet() > settings.get().maxPendingPeeks()) {
                pending.decrementAndGet();
                return Mono.error(new ControllerException(ControllerException.Kind.OVERLOADED,
                        "too many reads in flight (" + settings.get().maxPendingPeeks() + "); retry shortly"));
            }
            Mono<ReadResult> r;
            try {
                r = plan(req);
            } catch (RuntimeException e) {
                r = Mono.error(e);
            }
            return r.doFinally(s -> pending.decrementAndGet());
        });
    }

    private Mono<ReadResult> plan(ReadRequest req) {
        if ((req.from() == null) == (req.plan() == null)) {
            throw ControllerException.invalid("give exactly one of 'from' and 'plan'");
        }
        if (req.timeoutMs() != null && (req.timeoutMs() <= 0 || req.timeoutMs() > MAX_TIMEOUT_MS)) {
            throw ControllerException.invalid("timeout_ms must be between 1 and " + MAX_TIMEOUT_MS + ", got " + req.timeoutMs());
        }
        Duration timeout = req.timeoutMs() != null ? Duration.ofMillis(req.timeoutMs()) : settings.get().defaultTimeout();
        boolean strict = req.strict();
        if (req.asOf() != null && req.asOf() > clock.getAsLong() + MAX_AS_OF_AHEAD_MS) {
            throw ControllerException.invalid("as_of " + req.asOf() + " is more than " + MAX_AS_OF_AHEAD_MS
                    + " ms beyond the present; a read waits for its time to come, so pick a time at most that far ahead");
        }
        if (req.from() != null && system.containsKey(req.from())) {
            return fastPath(system.get(req.from()), req, strict, timeout);
        }
        if (req.from() != null) {
            CatalogEntry e = catalog.require(req.from());
            CatalogEntry.Index index = e instanceof CatalogEntry.Index i ? i : indexOn(e.name(), keyArity(req.keys()));
            if (index != null) {
                return fastPath(index, req, strict, timeout);
            }
            if (req.keys() != null) {
                throw ControllerException.invalid("key: a key lookup needs an index; '" + req.from() + "' has none");
            }
            return slowPath(Plan.getByName(req.from()), e.schema().columns().stream().map(Column::name).toList(), req, strict, timeout);
        }
        List<DatumType> types = typeByName(req.plan(), "plan");
        return slowPath(req.plan(), defaultNames(req.plan(), types.size()), req, strict, timeout);
    }

    /**
     * A random (version 4) uuid for a peek. Peek ids need uniqueness, not secrecy, so this avoids the
     * shared, synchronized secure generator of {@link UUID#randomUUID()} on the read path.
     */
    private static UUID peekId() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        long hi = (r.nextLong() & ~0xF000L) | 0x4000L;
        long lo = (r.nextLong() & ~(3L << 62)) | (1L << 63);
        return new UUID(hi, lo);
    }

    /** The arity of the first key row, or -1 when there is none to go by. */
    private static int keyArity(List<Row> keys) {
        return keys != null && !keys.isEmpty() ? keys.get(0).arity() : -1;
    }

    /**
     * A running index on {@code name} usable for key rows of {@code keyArity} columns (-1: any key), or
     * null.
     */
    public CatalogEntry.Index indexOn(String name, int keyArity) {
        CatalogEntry.Index any = null;
        for (CatalogEntry e : catalog.all()) {
            if (e instanceof CatalogEntry.Index i && i.on().equals(name) && indexes.containsKey(i.id())) {
                if (keyArity < 0 || i.key().size() == keyArity) {
                    return i;
                }
                any = any == null ? i : any;
            }
        }
        return keyArity < 0 ? any : null;
    }

    /** The MFP and finishing a request asks for, checked against the target's schema. */
    private record Shaping(Mfp mfp, Finishing finishing, List<String> columns) {
    }

    /**
     * The MFP and finishing of a request, checked against the target's schema: the MFP's expressions and
     * columns, the orderings' columns among the output's.
     */
    private static Shaping shaping(Mfp mfp, Finishing finishing, Schema schema) {
        List<DatumType> out;
        try {
            out = mfp.outputTypes(schema.types(), "");
        } catch (ExprException e) {
            throw ControllerException.invalid(e.getMessage());
        }
        List<String> columns = schema.columns().stream().map(Column::name).toList();
        if (mfp.project() != null) {
            columns = mfp.project().stream().map(c -> c < schema.arity() ? schema.column(c).name() : "c" + c).toList();
        }
        for (int i = 0; i < finishing.orderBy().size(); i++) {
            int c = finishing.orderBy().get(i).col();
            if (c < 0 || c >= out.size()) {
                throw ControllerException.invalid("order_by[" + i + "].col: column " + c + " does not exist; there are " + out.size());
            }
        }
        return new Shaping(mfp, finishing, columns);
    }

    /** The column {@code name} (or position, as text) of {@code schema}; else 422 naming the columns there are. */
    public static int columnIndex(Schema schema, String name, String at) {
        int c = schema.indexOf(name);
        if (c < 0) {
            try {
                int i = Integer.parseInt(name);
                if (i >= 0 && i < schema.arity()) {
                    return i;
                }
            } catch (NumberFormatException ignored) {
                // not a position either
            }
            throw ControllerException.invalid(at + ": no column '" + name + "'; columns are " + schema.columns().stream().map(Column::name).toList());
        }
        return c;
    }

    private Mono<ReadResult> fastPath(CatalogEntry.Index index, ReadRequest req, boolean strict, Duration timeout) {
        String failure = catalog.failure(index.name());
        if (failure != null) {
            throw ControllerException.conflict("index '" + index.name() + "' failed and is not maintained: " + failure
                    + "; drop it (and create it again, e.g. with a larger budget)");
        }
        IndexState s = indexes.get(index.id());
        if (s == null) {
            throw ControllerException.notFound("index '" + index.name() + "' is not running");
        }
        if (s.awaitingFirstFrontier()) {
            // An introspection collection's read time is known only once compute first reports it (its
            // logging dataflow starts at a time of its own): until then, wait for that report.
            return s.firstFrontier.asMono().timeout(timeout).onErrorMap(java.util.concurrent.TimeoutException.class,
                            x -> new ControllerException(ControllerException.Kind.TIMEOUT, "'" + index.name()
                                    + "' was not reported by compute within " + timeout.toMillis() + " ms"))
                    .then(Mono.defer(() -> fastPath(index, req, strict, timeout)));
        }
        Shaping shape = shaping(req.mfp(), req.finishing(), index.schema());
        List<Row> keys = req.keys() == null ? null : List.copyOf(new java.util.LinkedHashSet<>(req.keys()));
        // No lock: a point read never waits for compaction, slow-path reads or other point reads.
        long[] held = s.reads.chooseAndHold(() -> chooseTime(strict, req.asOf(), List.of(s), List.of()));
        long t = held[0];
        long hold = held[1];
        UUID uuid = peekId();
        ComputeCommand.Peek peek = new ComputeCommand.Peek(uuid, index.id(), t, keys, shape.mfp(), shape.finishing(), settings.get().maxResultRows());
        return awaitPeek(peek, timeout, strict || req.asOf() != null)
                .map(result -> toResult(result, shape.columns(), t, s.hydrated, "fast"))
                .doFinally(x -> s.reads.holds.remove(hold));
    }

    /**
     * Resolves a change stream of {@code name} (an index, or a table or view with an index): its keys,
     * filter and projection, checked as for a read, and its start time (an explicit {@code as_of}, at
     * or after the index's compaction frontier, or the serializable read time), held on the index until
     * the returned start is released.
     */
    public ChangeStreamStart startChangeStream(String name, List<Row> keys, Mfp filterProject, Long asOf) {
        Mfp mfp = filterProject != null ? filterProject : Mfp.identity();
        CatalogEntry e = readable(name);
        CatalogEntry.Index index = e instanceof CatalogEntry.Index i ? i : indexOn(e.name(), keyArity(keys));
        if (index == null) {
            if (keys != null) {
                throw ControllerException.invalid("key: watching keys needs an index, and '" + name + "' has none"
                        + (indexOn(e.name(), -1) != null ? " with a key of that arity" : "") + "; create one on it first, or watch it whole");
            }
            return startTransientStream(Plan.getByName(e.name()), e.schema().columns().stream().map(Column::name).toList(), name,
                    mfp, asOf);
        }
        String failure = catalog.failure(index.name());
        if (failure != null) {
            throw ControllerException.conflict("index '" + index.name() + "' failed and is not maintained: " + failure);
        }
        IndexState s = indexes.get(index.id());
        if (s == null) {
            throw ControllerException.notFound("index '" + index.name() + "' is not running");
        }
        if (asOf != null && asOf > clock.getAsLong() + MAX_AS_OF_AHEAD_MS) {
            throw ControllerException.invalid("as_of " + asOf + " is more than " + MAX_AS_OF_AHEAD_MS + " ms beyond the present");
        }
        Shaping shape = shaping(mfp, Finishing.NONE, index.schema());
        List<Row> distinctKeys = keys != null ? List.copyOf(new java.util.LinkedHashSet<>(keys)) : null;
        long t;
        long hold;
        synchronized (policyLock) {
            t = chooseTime(false, asOf, List.of(s), List.of());
            hold = s.reads.holds.add(t);
        }
        return new ChangeStreamStart(index.id(), index.name(), index.schema(), index.key(), distinctKeys, shape.mfp(), shape.columns(), t,
                () -> s.reads.holds.remove(hold));
    }

    /**
     * Resolves a change stream of a query ({@code req.plan()}, a plan by names, or {@code req.from()}):
     * a collection with an index is followed through it as by {@link #startChangeStream(String, List, Mfp,
     * Long)}; anything else through a transient dataflow the stream owns. A change
     * stream has no order: {@code order_by}, {@code limit} and {@code offset} are refused.
     */
    public ChangeStreamStart startChangeStream(ReadRequest req) {
        if (!req.finishing().isTrivial()) {
            throw ControllerException.invalid("a change stream has no order: order_by, limit and offset do not apply"
                    + " (a top-k inside the query does)");
        }
        if (req.asOf() != null && req.asOf() > clock.getAsLong() + MAX_AS_OF_AHEAD_MS) {
            throw ControllerException.invalid("as_of " + req.asOf() + " is more than " + MAX_AS_OF_AHEAD_MS + " ms beyond the present");
        }
        if ((req.from() == null) == (req.plan() == null)) {
            throw ControllerException.invalid("give exactly one of 'from' and 'plan'");
        }
        if (req.from() != null) {
            return startChangeStream(req.from(), req.keys(), req.mfp(), req.asOf());
        }
        if (req.keys() != null) {
            throw ControllerException.invalid("key: watching keys needs 'from' naming an indexed collection");
        }
        List<DatumType> types = typeByName(req.plan(), "plan");
        return startTransientStream(req.plan(), defaultNames(req.plan(), types.size()), "(query)", req.mfp(), req.asOf());
    }

    /** A transient dataflow a change stream owns: the catalog names it reads (a drop of one ends it), and holds to release once it hydrates. */
    private static final class StreamDataflow {
        final String label;
        final java.util.Set<String> inputs;
        final List<Runnable> inputHolds;
        volatile String endReason;

        StreamDataflow(String label, java.util.Set<String> inputs, List<Runnable> inputHolds) {
            this.label = label;
            this.inputs = inputs;
            this.inputHolds = inputHolds;
        }

        synchronized void releaseInputs() {
            inputHolds.forEach(Runnable::run);
            inputHolds.clear();
        }
    }

    /**
     * A change stream of a plan by names through a transient, unbounded dataflow of its own (an index of
     * the shaped result, keyed by every column, never in the catalog): maintained like an index from
     * {@code as_of} on (importing the indexes it can), published like one, compacted right behind the
     * stream's own hold, and dropped when the stream ends or one of its inputs is dropped.
     */
    private ChangeStreamStart startTransientStream(Plan byName, List<String> names, String label, Mfp mfp, Long asOf) {
        Expansion x = new Expansion(true);
        Plan plan = x.expand(byName, "plan");
        Schema schema = resultSchema(plan, x, names);
        Shaping shape = shaping(mfp, Finishing.NONE, schema);
        Plan shaped = shape.mfp().isIdentity() ? plan : new Plan.MapFilterProject(plan, shape.mfp());
        List<DatumType> outTypes = shape.mfp().isIdentity() ? schema.types() : shape.mfp().outputTypes(schema.types(), "");
        List<Column> outCols = new ArrayList<>();
        List<Integer> key = new ArrayList<>();
        for (int i = 0; i < outTypes.size(); i++) {
            outCols.add(new Column(shape.columns().get(i), outTypes.get(i), true));
            key.add(i);
        }
        Schema out = dedupe(outCols);
        List<IndexState> inputs = x.imports.keySet().stream().map(indexes::get).toList();
        List<String> tables = List.copyOf(x.sources.keySet());
        String tid = catalog.allocateTransientId();
        CatalogEntry.Index entry = new CatalogEntry.Index(tid, label, label, List.of(), out, 0);
        StreamDataflow df = new StreamDataflow(label, java.util.Set.copyOf(x.names), new ArrayList<>());
        long t;
        IndexState state;
        long startHold;
        synchronized (policyLock) {
            t = chooseTime(false, asOf, inputs, tables);
            for (IndexState s : inputs) {
                long h = s.reads.holds.add(t);
                df.inputHolds.add(() -> s.reads.holds.remove(h));
            }
            for (String table : tables) {
                Holds h = tableHolds.computeIfAbsent(table, k -> new Holds());
                long id = h.add(t);
                df.inputHolds.add(() -> h.remove(id));
            }
            state = new IndexState(entry, t);
            startHold = state.reads.holds.add(t);
            streamDataflows.put(tid, df);
            indexes.put(tid, state);
        }
        DataflowDescription desc = new DataflowDescription(x.sources, x.imports,
                List.of(new DataflowDescription.BuildDesc("o_" + tid, shaped)),
                List.of(new DataflowDescription.IndexExport(tid, "o_" + tid, key)), t, null);
        send(new ComputeCommand.CreateDataflow(desc));
        send(new ComputeCommand.Schedule(tid));
        return new ChangeStreamStart(tid, label, out, List.of(), null, Mfp.identity(), shape.columns(), t,
                () -> state.reads.holds.remove(startHold), () -> endTransientStreamLater(tid),
                () -> df.endReason != null ? df.endReason : "the change stream of " + label + " ended: its dataflow went away");
    }

    /**
     * Drops a change stream's transient dataflow off the caller's thread (a stream ends on the interactive
     * runtime's threads, which must not wait for the command lock); at shutdown, when the timer is gone,
     * the dataflow goes with the process.
     */
    private void endTransientStreamLater(String tid) {
        try {
            timer.schedule(() -> endTransientStream(tid, null));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            streamDataflows.remove(tid);
        }
    }

    /**
     * Drops a change stream's transient dataflow (once): its stream, if still running, ends with
     * {@code reason}.
     */
    private void endTransientStream(String tid, String reason) {
        StreamDataflow df = streamDataflows.remove(tid);
        if (df == null) {
            return;
        }
        if (reason != null) {
            df.endReason = reason;
        }
        df.releaseInputs();
        synchronized (policyLock) {
            indexes.remove(tid);
        }
        send(new ComputeCommand.AllowCompaction(tid, Frontier.EMPTY));
    }

    /** The transient dataflows of change streams now running (for tests and introspection). */
    public int transientStreamCount() {
        return streamDataflows.size();
    }

    /**
     * The read time: an explicit {@code as_of}; for strict reads the oracle's latest write; otherwise
     * the freshest time at which every input is sealed. Never before an input's compaction frontier.
     */
    private long chooseTime(boolean strict, Long asOf, List<IndexState> inputs, List<String> tables) {
        long since = Long.MIN_VALUE;
        long sealed = Long.MAX_VALUE;
        for (IndexState s : inputs) {
            since = Math.max(since, s.reads.since().time());
            sealed = Math.min(sealed, Math.max(s.asOf, s.upper.isEmpty() ? Long.MAX_VALUE : s.upper.time() - 1));
        }
        for (String table : tables) {
            since = Math.max(since, storage.since(table).time());
            Frontier u = storage.upper(table);
            sealed = Math.min(sealed, u.isEmpty() ? Long.MAX_VALUE : u.time() - 1);
        }
        if (asOf != null) {
            if (asOf < since) {
                throw new ControllerException(ControllerException.Kind.BEFORE_SINCE,
                        "as_of " + asOf + " is before the compaction frontier " + since + "; read at " + since + " or later");
            }
            return asOf;
        }
        if (strict) {
            return Math.max(storage.lastWriteTime(), since);
        }
        if (sealed == Long.MAX_VALUE) {
            sealed = clock.getAsLong();
        }
        return Math.max(sealed, since);
    }

    private Mono<ComputeResponse.PeekResult> awaitPeek(ComputeCommand.Peek peek, Duration timeout, boolean waitsForSeal) {
        // A slow-path read registers its peek before creating the dataflow, so a rejection finds it.
        Sinks.One<ComputeResponse.PeekResult> sink = peeks.computeIfAbsent(peek.uuid(), k -> Sinks.one());
        send(peek);
        return sink.asMono()
                .doOnCancel(() -> {
                    // The reader went away (a closed connection or socket): stop the replica at once.
                    if (peeks.remove(peek.uuid()) != null) {
                        send(new ComputeCommand.CancelPeek(peek.uuid()));
                    }
                })
                .timeout(timeout)
                .onErrorMap(TimeoutException.class, x -> {
                    // Cancel first, so the replica stops before our hold on the read time goes away.
                    peeks.remove(peek.uuid());
                    send(new ComputeCommand.CancelPeek(peek.uuid()));
                    return new ControllerException(ControllerException.Kind.TIMEOUT, "the read at " + peek.timestamp()
                            + " could not be answered within " + timeout.toMillis() + " ms"
                            + (waitsForSeal ? " (the inputs were not sealed at that time)" : ""));
                })
                .flatMap(result -> switch (result) {
                    case ComputeResponse.Error err -> Mono.error(mapPeekError(err));
                    case ComputeResponse.Canceled c -> Mono.error(new ControllerException(ControllerException.Kind.TIMEOUT, "the read was canceled"));
                    case ComputeResponse.Rows rows -> Mono.just(result);
                });
    }

    private static ControllerException mapPeekError(ComputeResponse.Error error) {
        ControllerException.Kind kind = switch (error.kind()) {
            case BEFORE_SINCE -> ControllerException.Kind.BEFORE_SINCE;
            case TOO_LARGE -> ControllerException.Kind.TOO_LARGE;
            case INVALID, UNKNOWN_COLLECTION, FAILED -> ControllerException.Kind.INVALID;
        };
        return new ControllerException(kind, error.message());
    }

    private ReadResult toResult(ComputeResponse.PeekResult result, List<String> columns, long t, boolean hydrated, String path) {
        ComputeResponse.Rows rows = (ComputeResponse.Rows) result;
        ComputeResponse.ReadInfo info = rows.info();
        return new ReadResult(columns, rows.rows(), t, info.upper(), info.since(), Math.max(0, clock.getAsLong() - t), hydrated, path, info.runtime());
    }

    /**
     * The schema of the result of {@code byName}, a plan by names, as a read of it names its columns
     * (after the collections' columns, {@code c<i>} where there is no name; repeats suffixed by position).
     */
    public Schema resultSchema(Plan byName) {
        List<DatumType> types = typeByName(byName, "plan");
        List<String> names = defaultNames(byName, types.size());
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add(new Column(names.get(i), types.get(i), true));
        }
        return dedupe(cols);
    }

    /** The schema of an expanded plan's result: its types, named by {@code names} ({@code c<i>} past their end), deduplicated. */
    private Schema resultSchema(Plan plan, Expansion x, List<String> names) {
        List<DatumType> types = typeById(plan, x, "plan");
        List<Column> cols = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            cols.add(new Column(i < names.size() ? names.get(i) : "c" + i, types.get(i), true));
        }
        return dedupe(cols);
    }

    private Mono<ReadResult> slowPath(Plan byName, List<String> names, ReadRequest req, boolean strict, Duration timeout) {
        Expansion x = new Expansion(true);
        Plan plan = x.expand(byName, "plan");
        Schema schema = resultSchema(plan, x, names);
        Shaping shape = shaping(req.mfp(), req.finishing(), schema);
        if (req.keys() != null) {
            throw ControllerException.invalid("key: a key lookup needs 'from' naming an indexed collection");
        }
        List<IndexState> inputs = x.imports.keySet().stream().map(indexes::get).toList();
        List<String> tables = List.copyOf(x.sources.keySet());
        long t;
        List<Runnable> releases = new ArrayList<>();
        synchronized (policyLock) {
            t = chooseTime(strict, req.asOf(), inputs, tables);
            for (IndexState s : inputs) {
                long h = s.reads.holds.add(t);
                releases.add(() -> s.reads.holds.remove(h));
            }
            for (String table : tables) {
                Holds h = tableHolds.computeIfAbsent(table, k -> new Holds());
                long id = h.add(t);
                releases.add(() -> h.remove(id));
            }
        }
        String tid = catalog.allocateTransientId();
        Plan shaped = shape.mfp().isIdentity() ? plan : new Plan.MapFilterProject(plan, shape.mfp());
        List<Integer> key = new ArrayList<>();
        for (int i = 0; i < shape.columns().size(); i++) {
            key.add(i);
        }
        DataflowDescription desc = new DataflowDescription(x.sources, x.imports,
                List.of(new DataflowDescription.BuildDesc("o_" + tid, shaped)),
                List.of(new DataflowDescription.IndexExport(tid, "o_" + tid, key)), t, t + 1);
        ComputeCommand.Peek peek = new ComputeCommand.Peek(peekId(), tid, t, null, Mfp.identity(), shape.finishing(),
                settings.get().maxResultRows());
        peeks.put(peek.uuid(), Sinks.one());
        transientPeeks.put(tid, peek.uuid());
        send(new ComputeCommand.CreateDataflow(desc));
        send(new ComputeCommand.Schedule(tid));
        boolean hydrated = inputs.stream().allMatch(s -> s.hydrated);
        return awaitPeek(peek, timeout, true)
                .map(result -> toResult(result, shape.columns(), t, hydrated, answeredEarly(result, t) ? "slow_early" : "slow"))
                .doFinally(sig -> {
                    transientPeeks.remove(tid);
                    send(new ComputeCommand.AllowCompaction(tid, Frontier.EMPTY));
                    releases.forEach(Runnable::run);
                });
    }

    /**
     * Whether compute answered a slow-path read before its dataflow's output was complete (a limit
     * without an order, met by rows certainly in the result): such an answer is not sealed past the read time.
     */
    private static boolean answeredEarly(ComputeResponse.PeekResult result, long t) {
        return result instanceof ComputeResponse.Rows rows && !rows.info().upper().isPast(t);
    }

    private static Schema dedupe(List<Column> cols) {
        List<Column> out = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < cols.size(); i++) {
            Column c = cols.get(i);
            String name = seen.add(c.name()) ? c.name() : c.name() + "_" + i;
            seen.add(name);
            out.add(new Column(name, c.type(), true));
        }
        return new Schema(out);
    }

    // ------------------------------------------------------------------ plans by name

    /** Types a plan whose {@code get}s are by name. */
    private List<DatumType> typeByName(Plan plan, String path) {
        try {
            Plan byId = plan.resolveNames(name -> catalog.get(name).isPresent() ? name : null, path);
            return byId.types(name -> catalog.get(name).map(e -> e.schema().types()).orElse(null), path);
        } catch (ExprException e) {
            throw ControllerException.invalid(e.getMessage());
        }
    }

    private List<DatumType> typeById(Plan plan, Expansion x, String path) {
        Map<String, List<DatumType>> types = new HashMap<>();
        x.sources.forEach((id, s) -> types.put(id, s.types()));
        x.imports.forEach((id, i) -> types.put(id, i.schema().types()));
        try {
            return plan.types(types::get, path);
        } catch (ExprException e) {
            throw ControllerException.invalid(e.getMessage());
        }
    }

    private List<String> defaultNames(Plan plan, int arity) {
        List<String> names = new ArrayList<>(dev.tandem.plan.PlanNames.of(plan,
                name -> catalog.get(name).map(e -> e.schema().columns().stream().map(Column::name).toList()).orElse(null)));
        while (names.size() < arity) {
            names.add("c" + names.size());
        }
        return names;
    }

    /**
     * Rewrites a plan by names into one by ids: tables become source imports; views are inlined; with
     * {@code useIndexes}, a collection that has an index is imported through it instead (a shared
     * arrangement), which is how slow-path queries read maintenance's indexes.
     */
    private final class Expansion {
        final boolean useIndexes;
        final Map<String, Schema> sources = new LinkedHashMap<>();
        final Map<String, DataflowDescription.IndexImport> imports = new LinkedHashMap<>();
        /** Every catalog name the plan reads, directly or through views and indexes. */
        final java.util.Set<String> names = new java.util.HashSet<>();

        Expansion(boolean useIndexes) {
            this.useIndexes = useIndexes;
        }

        Plan expand(Plan plan, String path) {
            return plan.substitute((g, at) -> {
                if (g.id() != null) {
                    throw ControllerException.invalid(at + ": refer to collections by name ({\"op\":\"get\",\"name\":...}), not by id");
                }
                CatalogEntry e = catalog.get(g.name()).orElseThrow(() -> ControllerException.notFound(at + ": no table, view or index named '" + g.name() + "'"));
                names.add(e.name());
                if (e instanceof CatalogEntry.Index i) {
                    return importIndex(i);
                }
                if (useIndexes) {
                    CatalogEntry.Index i = indexOn(e.name(), -1);
                    if (i != null) {
                        return importIndex(i);
                    }
                }
                return switch (e) {
                    case CatalogEntry.Table t -> {
                        sources.put(t.id(), t.schema());
                        yield Plan.get(t.id());
                    }
                    case CatalogEntry.View v -> expand(v.plan(), at);
                    case CatalogEntry.Index i -> throw new IllegalStateException();
                };
            }, path);
        }

        private Plan importIndex(CatalogEntry.Index i) {
            if (!indexes.containsKey(i.id())) {
                throw ControllerException.notFound("index '" + i.name() + "' is not running");
            }
            names.add(i.name());
            names.add(i.on());
            List<Integer> key = new ArrayList<>();
            for (String k : i.key()) {
                key.add(i.schema().indexOf(k));
            }
            imports.put(i.id(), new DataflowDescription.IndexImport(i.on(), key, i.schema()));
            return Plan.get(i.id());
        }

        /** A time at which every input is readable (for a new index: the freshest sealed time). */
        long readableTime() {
            long t = Long.MIN_VALUE;
            long sealed = Long.MAX_VALUE;
            for (String table : sources.keySet()) {
                t = Math.max(t, storage.since(table).time());
                Frontier u = storage.upper(table);
                sealed = Math.min(sealed, u.isEmpty() ? Long.MAX_VALUE : u.time() - 1);
            }
            if (sealed == Long.MAX_VALUE) {
                sealed = Math.max(storage.lastWriteTime(), 0);
            }
            return Math.max(t, sealed);
        }
    }

    @Override
    public void close() {
        ticker.dispose();
        responses.dispose();
        events.tryEmitComplete();
    }
}
