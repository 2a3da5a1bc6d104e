package dev.tandem.controller;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Mfp;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.Introspection;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.RowsGoneException;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.UniqueKey;
import dev.tandem.storage.UniqueViolationException;
import dev.tandem.storage.WriteRefusal;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The built-in controller of standalone mode: the durable catalog of tables, views and indexes, and the
 * facade through which the API, SQL, change streams and sources act on it and read, in front of the
 * compute replica (a {@link Multiplexer}). It takes typed requests (the API decodes JSON first) and
 * delegates each concern to a class of its own: {@link TableDefinition} (a new table's checks),
 * {@link Reads} (the read paths and the starts of change streams), {@link ReadPlanner} (index choice, plan expansion,
 * result schemas, dataflow descriptions), {@link ReadPolicy} (read times, holds, compaction, under one
 * lock), {@link PeekDispatch} (commands out, peek answers in), {@link IndexTracker} (index state,
 * frontiers, events) and {@link TransientStreams} (the dataflows change streams own).
 *
 * <p>Reads: an MFP over one indexed collection is a fast-path peek of the index; any other read is a
 * slow-path transient dataflow ({@code t} id, {@code as_of = t}, {@code until = t+1}) that imports the
 * indexes it can as shared arrangements, is peeked once, then dropped.
 *
 * <p>Catalog changes block on durable storage and are serialized (on this object); call them off
 * event-loop threads. Reads are asynchronous. While a peek is in flight its read time is held on its
 * inputs; a timed-out peek is canceled before its hold is released.
 */
public final class Controller implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(Controller.class.getName());
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** How far beyond the present an explicit {@code as_of} may lie; further is refused, not waited for. */
    static final long MAX_AS_OF_AHEAD_MS = 3_600_000;
    /** The longest a read may ask to wait ({@code timeout_ms}). */
    static final long MAX_TIMEOUT_MS = 600_000;
    /** How often a catalog change is checked again after other replicas' changes came first. */
    private static final int DEFINE_ATTEMPTS = 10;

    private final TableStorage storage;
    private final Multiplexer compute;
    private final ArrangementSharingRegistry registry;
    private final LongSupplier clock;
    private final Catalog catalog;
    private final AtomicReference<ControllerSettings> settings;
    private final Scheduler timer;
    private final PeekDispatch dispatch;
    private final IndexTracker indexes = new IndexTracker();
    private final ReadPolicy policy;
    private final ReadPlanner planner;
    /** The introspection collections, served like indexes but not in the durable catalog. */
    private final Map<String, CatalogEntry.Index> system = new LinkedHashMap<>();
    /** Tables that only their feeder writes to (sources), by name, with why users may not write or drop them. */
    private final Map<String, String> fedTables = new ConcurrentHashMap<>();
    private final TransientStreams streams;
    private final Reads reads;
    private final Disposable responses;
    private final Disposable ticker;
    private volatile List<String> recovering = List.of();
    /** Learns the definitions other replicas make, one run at a time; its thread starts with the first run. */
    private final ExecutorService learner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tandem-catalog-learner");
        t.setDaemon(true);
        return t;
    });
    /** A learning run is queued and has not started: further changes are covered by it. */
    private final AtomicBoolean learnQueued = new AtomicBoolean();
    private final List<Runnable> afterLearning = new CopyOnWriteArrayList<>();

    public Controller(TableStorage storage, Multiplexer compute, ArrangementSharingRegistry registry, ControllerSettings settings,
            LongSupplier clock, Scheduler timer) {
        this.storage = storage;
        this.compute = compute;
        this.registry = registry;
        this.clock = clock;
        this.timer = timer;
        this.catalog = new Catalog(storage);
        this.settings = new AtomicReference<>(settings);
        this.dispatch = new PeekDispatch(compute, timer);
        this.policy = new ReadPolicy(storage, clock, this.settings::get, indexes, dispatch);
        this.planner = new ReadPlanner(catalog, indexes, storage);
        this.streams = new TransientStreams(planner, policy, indexes, dispatch, catalog::allocateTransientId, timer);
        this.reads = new Reads(catalog, system, indexes, planner, policy, dispatch, streams, this.settings::get, clock);
        this.responses = compute.responses().subscribe(this::receive);
        dispatch.send(new ComputeCommand.Hello(UUID.randomUUID().toString()));
        dispatch.send(new ComputeCommand.CreateInstance(Map.of(), new ComputeParameters(settings.maxResultRows())));
        for (Introspection.Collection c : Introspection.ALL) {
            CatalogEntry.Index entry = new CatalogEntry.Index(c.id(), c.name(), c.name(), List.of(c.schema().column(0).name()), c.schema(),
                    CatalogEntry.Index.DEFAULT_WINDOW);
            system.put(c.name(), entry);
            indexes.track(IndexState.introspection(entry));
        }
        List<CatalogEntry.Index> recovered = catalog.recover().stream().filter(i -> catalog.failure(i.name()) == null).toList();
        for (CatalogEntry.Index i : recovered) {
            startIndex(i);
        }
        recovering = recovered.stream().map(CatalogEntry.Index::id).toList();
        dispatch.send(new ComputeCommand.InitializationComplete());
        this.ticker = Flux.interval(Duration.ofMillis(50), timer).subscribe(x -> policy.compact());
        storage.watchDefinitions(this::definitionsChanged);
        // Changes applied between reading the catalog above and watching are learned by this first run.
        definitionsChanged();
    }

    /**
     * Queues a learning run ({@link #learn}, then the {@link #afterLearning} hooks) unless one is queued
     * already; called on the storage's thread, which must not wait for the catalog's lock.
     */
    private void definitionsChanged() {
        if (!learnQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            learner.execute(() -> {
                learnQueued.set(false);
                try {
                    learn();
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "learning the definitions made through other replicas failed", e);
                }
                for (Runnable hook : afterLearning) {
                    try {
                        hook.run();
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "a hook after learning definitions failed", e);
                    }
                }
            });
        } catch (RejectedExecutionException closed) {
            // closing: nothing left to serve
        }
    }

    /**
     * Runs {@code hook} after each learning run, on the learner's thread (the sources start and stop the
     * sources defined and dropped through other replicas this way).
     */
    public void afterLearning(Runnable hook) {
        afterLearning.add(hook);
    }

    // ------------------------------------------------------------------ settings and status

    public ControllerSettings settings() {
        return settings.get();
    }

    /** Applies new live settings; the result-size limit reaches the replica too. */
    public void updateSettings(ControllerSettings next) {
        settings.set(next);
        dispatch.send(new ComputeCommand.UpdateConfiguration(new ComputeParameters(next.maxResultRows())));
    }

    /** Whether every index recovered at start-up has hydrated (readiness). */
    public boolean ready() {
        return indexes.hydrated(recovering);
    }

    public int pendingReads() {
        return reads.pending();
    }

    public boolean twoRuntimes() {
        return compute.twoRuntimes();
    }

    /**
     * Index events. Each subscriber gets its own bounded buffer (oldest dropped first when it falls far
     * behind), so the shared sink never skips a subscriber that is merely between requests.
     */
    public Flux<ControllerEvent> events() {
        return indexes.events();
    }

    /** Events a subscriber was too slow to take. */
    public long droppedEvents() {
        return indexes.droppedEvents();
    }

    // ------------------------------------------------------------------ catalog

    public synchronized CatalogEntry.Table createTable(String name, List<Column> columns) {
        return createTable(name, columns, List.of());
    }

    /**
     * Creates a table with unique keys: writes that would leave two rows with one value of a key are
     * refused ({@link UniqueViolationException}). A key without a name is named as PostgreSQL names it
     * ({@code <table>_pkey}, {@code <table>_<columns>_key}); a primary key makes its columns NOT NULL and
     * comes with an index of its name on its columns, created with the table.
     */
    public synchronized CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys) {
        return createTable(name, columns, keys, Map.of());
    }

    /** Creates a table with unique keys (as above) and constant column defaults by column name, kept with it in the catalog. */
    public synchronized CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys,
            Map<String, Object> defaults) {
        return createTable(name, columns, keys, defaults, Map.of());
    }

    /**
     * Creates a table as above whose columns named in {@code declared} have that SQL type: every write
     * fits its values to it ({@link DeclaredType#fit}), as the column's default is fitted here.
     */
    public synchronized CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys,
            Map<String, Object> defaults, Map<String, DeclaredType> declared) {
        return createTable(name, columns, keys, defaults, declared, List.of());
    }

    /**
     * Creates a table as above with {@code CHECK} constraints: a write that adds a row that makes one of them
     * false is refused whole ({@link CheckViolationException}).
     */
    public synchronized CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys,
            Map<String, Object> defaults, Map<String, DeclaredType> declared, List<CatalogEntry.Check> checks) {
        return defining(() -> createTableOnce(name, columns, keys == null ? List.of() : keys, defaults, declared, checks));
    }

    private CatalogEntry.Table createTableOnce(String name, List<Column> columns, List<CatalogEntry.Key> requested,
            Map<String, Object> givenDefaults, Map<String, DeclaredType> declared, List<CatalogEntry.Check> checks) {
        TableDefinition d = TableDefinition.of(name, columns, requested, givenDefaults, declared, checks, this::checkName);
        Schema tableSchema = d.schema();
        List<CatalogEntry.Key> keys = d.keys();
        CatalogEntry.Key primary = d.primary();
        Map<String, Object> defaults = d.defaults();
        List<UniqueKey> stored = new ArrayList<>();
        for (CatalogEntry.Key k : keys) {
            stored.add(new UniqueKey(k.name(), k.columns().stream().map(tableSchema::indexOf).toList(), k.primary()));
        }
        List<CatalogEntry> defined = primary == null
                ? List.of(catalog.define(id -> new CatalogEntry.Table(id, name, tableSchema, keys, defaults, declared, checks)))
                : catalog.defineKeyed(id -> new CatalogEntry.Table(id, name, tableSchema, keys, defaults, declared, checks),
                        id -> new CatalogEntry.Index(id, primary.name(), name, primary.columns(), tableSchema, CatalogEntry.Index.DEFAULT_WINDOW));
        CatalogEntry.Table t = (CatalogEntry.Table) defined.get(0);
        try {
            storage.createTable(t.id(), tableSchema, stored);
        } catch (RuntimeException e) {
            try {
                catalog.remove(defined);
            } catch (RuntimeException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        }
        defined.forEach(catalog::serve);
        if (defined.size() > 1) {
            startIndex((CatalogEntry.Index) defined.get(1));
        }
        return t;
    }

    /** The table whose primary key index {@code index} is, or null. */
    private CatalogEntry.Table keyedBy(CatalogEntry.Index index) {
        return catalog.get(index.on()).filter(e -> e instanceof CatalogEntry.Table).map(e -> (CatalogEntry.Table) e)
                .filter(t -> t.primaryKey().map(k -> k.name().equals(index.name())).orElse(false)).orElse(null);
    }

    /** Creates a view of {@code plan} (by names); {@code columnNames} null names its columns after the plan's. */
    public synchronized CatalogEntry.View createView(String name, Plan plan, List<String> columnNames) {
        return createView(name, plan, columnNames, Map.of());
    }

    /**
     * Creates a view whose columns named in {@code declared} have those SQL types (an int64 column typed
     * {@code integer} or {@code smallint}, as the query defining it types it).
     */
    public synchronized CatalogEntry.View createView(String name, Plan plan, List<String> columnNames, Map<String, DeclaredType> declared) {
        return defining(() -> createViewOnce(name, plan, columnNames, declared));
    }

    private CatalogEntry.View createViewOnce(String name, Plan plan, List<String> columnNames, Map<String, DeclaredType> declared) {
        checkName(name);
        if (plan == null) {
            throw ControllerException.invalid("plan: a plan is required");
        }
        List<DatumType> types = planner.typeByName(plan, "plan");
        List<String> names = columnNames != null ? columnNames : planner.defaultNames(plan, types.size());
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
        Schema viewSchema = schema;
        CatalogEntry.View v = catalog.define(id -> new CatalogEntry.View(id, name, plan, viewSchema, declared));
        catalog.serve(v);
        return v;
    }

    /** Creates an index on a table or view by key column names (or positions); it hydrates asynchronously. */
    public synchronized CatalogEntry.Index createIndex(String name, String on, List<String> key, Long windowMillis) {
        return defining(() -> createIndexOnce(name, on, key, windowMillis));
    }

    private CatalogEntry.Index createIndexOnce(String name, String on, List<String> key, Long windowMillis) {
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
        CatalogEntry.Index idx = catalog.define(id -> new CatalogEntry.Index(id, name, on, keyNames, target.schema(), window));
        catalog.serve(idx);
        startIndex(idx);
        return idx;
    }

    public synchronized void drop(String name, Class<? extends CatalogEntry> kind) {
        defining(() -> {
            dropOnce(name, kind, false);
            return null;
        });
    }

    /**
     * Drops a table or view with the indexes on it, together, as SQL's {@code DROP TABLE} and {@code DROP VIEW}
     * do in PostgreSQL; a view that reads it must still be dropped first (nothing is dropped then).
     */
    public synchronized void dropWithIndexes(String name, Class<? extends CatalogEntry> kind) {
        defining(() -> {
            dropOnce(name, kind, true);
            return null;
        });
    }

    private void dropOnce(String name, Class<? extends CatalogEntry> kind, boolean withIndexes) {
        CatalogEntry e = catalog.require(name);
        if (!kind.isInstance(e)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND, "'" + name + "' is not a " + kind.getSimpleName().toLowerCase());
        }
        String fed = e instanceof CatalogEntry.Table ? fedTables.get(name) : null;
        if (fed != null) {
            throw new ControllerException(ControllerException.Reason.FED_BY_SOURCE, fed);
        }
        if (e instanceof CatalogEntry.Index i && keyedBy(i) != null) {
            throw new ControllerException(ControllerException.Reason.DEPENDENT, "cannot drop index " + name + " because constraint " + name + " on table " + i.on() + " requires it");
        }
        // a table's primary key index goes with it, and so do the other indexes on it where asked; what else
        // reads it (a view) must be dropped first
        String keyIndex = e instanceof CatalogEntry.Table t ? t.primaryKey().map(k -> k.name()).orElse(null) : null;
        List<CatalogEntry> indexes = new ArrayList<>();
        List<String> dependents = new ArrayList<>();
        for (String d : catalog.dependents(name)) {
            CatalogEntry de = catalog.get(d).orElse(null);
            if (!(e instanceof CatalogEntry.Index) && de instanceof CatalogEntry.Index i && i.on().equals(name)
                    && (withIndexes || d.equals(keyIndex))) {
                indexes.add(de);
            } else {
                dependents.add(d);
            }
        }
        if (!dependents.isEmpty()) {
            throw new ControllerException(ControllerException.Reason.DEPENDENT, "'" + name + "' is used by " + String.join(", ", dependents) + "; drop them first");
        }
        List<CatalogEntry> removed = new ArrayList<>(indexes);
        removed.add(e);
        catalog.remove(removed);
        for (CatalogEntry i : indexes) {
            stopServing(i);
        }
        stopServing(e);
        if (e instanceof CatalogEntry.Table t) {
            storage.dropTable(t.id());
        }
    }

    /**
     * Makes a catalog change, checked against the catalog as this replica knows it; if another replica
     * changed the stored catalog first (over a shared log), learns it and checks the change again, so a
     * name another replica took meanwhile is refused here (409) as a local duplicate would be.
     */
    private <T> T defining(Supplier<T> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                return change.get();
            } catch (Catalog.Moved moved) {
                if (attempt == DEFINE_ATTEMPTS) {
                    throw new ControllerException(ControllerException.Reason.CATALOG_CONTENDED, "the catalog kept changing through other replicas (" + moved.getMessage()
                            + "); nothing was changed, retry");
                }
                learn();
            }
        }
    }

    /**
     * Brings the catalog up to the stored one: serves the tables, views and indexes other replicas over a
     * shared log defined (a learned index hydrates like a recovered one) and stops serving those they
     * dropped. Runs after every change of definitions the storage applies ({@link TableStorage#watchDefinitions}),
     * and before a definition here is checked again.
     */
    public synchronized void learn() {
        catalog.learn(storage.catalogEntries(), Set.copyOf(storage.tables()), this::stopServing, e -> {
            if (e instanceof CatalogEntry.Index i) {
                startIndex(i);
            }
        });
    }

    /** Stops serving a dropped entry: change streams reading it end first, saying why; an index's dataflow goes. */
    private void stopServing(CatalogEntry e) {
        streams.inputDropped(e.name(), kindOf(e));
        if (e instanceof CatalogEntry.Index i) {
            indexes.untrack(i.id());
            dispatch.send(new ComputeCommand.AllowCompaction(i.id(), Frontier.EMPTY));
        }
    }

    public List<CatalogEntry> catalog() {
        return catalog.all();
    }

    /** The catalog with its version (see {@link CatalogSnapshot}). */
    public CatalogSnapshot catalogSnapshot() {
        return catalog.snapshot();
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
        return reads.readable(name);
    }

    /**
     * The table {@code table} as storage holds it now; a table dropped since its entry was read is not
     * found (404), as it would be a moment later.
     */
    public TableStatus tableStatus(CatalogEntry.Table table) {
        try {
            return new TableStatus(table, storage.upper(table.id()), storage.since(table.id()), storage.records(table.id()));
        } catch (IllegalArgumentException e) { // storage's unknown table
            throw ControllerException.notFound("table '" + table.name() + "' was dropped");
        }
    }

    public IndexStatus indexStatus(String name) {
        CatalogEntry e = system.containsKey(name) ? system.get(name) : catalog.require(name);
        if (!(e instanceof CatalogEntry.Index i)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND, "'" + name + "' is not an index");
        }
        IndexState s = indexes.get(i.id());
        Publication p = registry.current(i.id());
        var snapshot = p.published() ? p.arrangement().snapshot() : null;
        String failure = catalog.failure(i.name());
        return new IndexStatus(i.id(), i.name(), i.on(), i.key(), failure == null ? (s != null && s.hydrated ? "hydrated" : "hydrating") : "failed",
                failure, s != null && s.hydrated, s == null ? Frontier.MIN : s.upper,
                s == null ? Frontier.MIN : s.reads.since(), snapshot == null ? 0 : snapshot.records(), s == null ? 0 : s.asOf, policy.windowOf(i),
                snapshot == null ? null : snapshot.latestError());
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
                    indexes.untrack(index.id());
                }
            }
        });
    }

    private void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new ControllerException(ControllerException.Reason.INVALID_NAME, "name '" + name + "' is not valid: use letters, digits and _, starting with a letter or _ (at most 63)");
        }
        if (catalog.taken(name) || system.containsKey(name)) {
            throw new ControllerException(ControllerException.Reason.DUPLICATE, "'" + name + "' already exists");
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
            throw new ControllerException(ControllerException.Reason.FED_BY_SOURCE, fed);
        }
        return t;
    }

    /**
     * Writes rows (of the table's schema) to a table; completes with the write's timestamp once it is
     * durable.
     */
    public Mono<Long> write(String table, List<RowDiff> diffs) {
        CatalogEntry.Table t = writableTable(table);
        requireRows(diffs);
        return storage.write(t.id(), fitted(t, diffs)).onErrorMap(Controller::refusedByStorage, x -> named(x, Map.of(t.id(), t.name()), false));
    }

    /**
     * Writes rows to {@code table} as it was when they were made (a transaction block's writes at its
     * commit): refused ({@code 409}) if that table was dropped since, even if another of its name took its
     * place. A delete of rows deleted since is refused with a {@link RowsGoneException} and a key
     * violation with a {@link UniqueViolationException}, both naming the table by its name.
     */
    public Mono<Long> write(CatalogEntry.Table table, List<RowDiff> diffs) {
        CatalogEntry.Table now = stillWritable(table);
        requireRows(diffs);
        return storage.write(now.id(), fitted(now, diffs)).onErrorMap(Controller::refusedByStorage, x -> named(x, Map.of(now.id(), now.name()), true));
    }

    /**
     * Writes rows to several tables, each as it was when its rows were made (a transaction block's writes
     * at its commit), at one timestamp in one durable log record: all of it or nothing. Refused as
     * {@link #write(CatalogEntry.Table, List)} refuses, for any of the tables.
     */
    public Mono<Long> writeTables(Map<CatalogEntry.Table, List<RowDiff>> changes) {
        Map<String, List<RowDiff>> byId = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        for (Map.Entry<CatalogEntry.Table, List<RowDiff>> c : changes.entrySet()) {
            CatalogEntry.Table now = stillWritable(c.getKey());
            requireRows(c.getValue());
            byId.put(now.id(), fitted(now, c.getValue()));
            names.put(now.id(), now.name());
        }
        return storage.writeTables(byId, null).onErrorMap(Controller::refusedByStorage, x -> named(x, names, true));
    }

    /** {@code table} as it is now, if users may still write to it and it was not dropped since (409). */
    private CatalogEntry.Table stillWritable(CatalogEntry.Table table) {
        CatalogEntry.Table now = writableTable(table.name());
        if (!now.id().equals(table.id())) {
            throw new ControllerException(ControllerException.Reason.DROPPED_SINCE, "table '" + table.name() + "' was dropped since the rows were written");
        }
        return now;
    }

    private static void requireRows(List<RowDiff> diffs) {
        if (diffs.isEmpty()) {
            throw ControllerException.invalid("a write needs rows in 'insert' or 'delete'");
        }
    }

    /** A storage refusal whose message names tables by id (a key violation names none and stays as it is). */
    private static boolean refusedByStorage(Throwable x) {
        return x instanceof IllegalArgumentException && !(x instanceof UniqueViolationException);
    }

    /**
     * A storage refusal reworded to name the tables (by id in {@code names}) by their names: a delete of
     * rows gone since stays a {@link RowsGoneException} when {@code keepGone}, a NULL in a NOT NULL column is
     * {@link ControllerException.Reason#NOT_NULL}, anything else is invalid (422).
     */
    private static Throwable named(Throwable x, Map<String, String> names, boolean keepGone) {
        String message = x.getMessage();
        for (Map.Entry<String, String> n : names.entrySet()) {
            message = message.replace("table '" + n.getKey() + "'", "table '" + n.getValue() + "'");
        }
        if (keepGone && x instanceof RowsGoneException gone) {
            return gone.reworded(message);
        }
        boolean notNull = x instanceof WriteRefusal r && r.reason() == WriteRefusal.Reason.NOT_NULLABLE;
        return new ControllerException(notNull ? ControllerException.Reason.NOT_NULL : ControllerException.Reason.INVALID, message);
    }

    /** {@code diffs} fitted to {@code table}'s declared types and checked against its CHECK constraints ({@link WrittenRows#fitted}). */
    public static List<RowDiff> fitted(CatalogEntry.Table table, List<RowDiff> diffs) {
        return WrittenRows.fitted(table, diffs);
    }

    private static String kindOf(CatalogEntry e) {
        return e.getClass().getSimpleName().toLowerCase();
    }

    // ------------------------------------------------------------------ indexes

    private void startIndex(CatalogEntry.Index idx) {
        ReadPlanner.Expansion x = planner.expand(Plan.getByName(idx.on()), false, "on");
        Schema schema = idx.schema();
        List<Integer> key = new ArrayList<>();
        for (String k : idx.key()) {
            key.add(schema.indexOf(k));
        }
        long asOf = x.readableTime();
        DataflowDescription desc = x.dataflow(idx.id(), x.plan, key, asOf, null);
        indexes.track(new IndexState(idx, asOf));
        dispatch.send(new ComputeCommand.CreateDataflow(desc));
        dispatch.send(new ComputeCommand.Schedule(idx.id()));
    }

    /** Routes compute's responses: frontier reports to the index tracker, peek answers to dispatch, failures to both. */
    private void receive(ComputeResponse r) {
        switch (r) {
            case ComputeResponse.Frontiers f -> {
                IndexState s = indexes.get(f.id());
                if (s == null) {
                    return;
                }
                boolean wasHydrated = s.hydrated;
                indexes.advance(s, f.writeFrontier(), policy);
                if (streams.reported(f.id(), s)) {
                    return;
                }
                indexes.publish(new ControllerEvent(wasHydrated || !s.hydrated ? "frontier" : "hydrated", s.index.name(), s.index.id(),
                        s.upper, s.hydrated, null));
            }
            case ComputeResponse.PeekResponse p -> dispatch.answer(p);
            case ComputeResponse.Status s -> {
                boolean dataflowEnded = switch (s.kind()) {
                    case DATAFLOW_FAILED, DATAFLOW_OVER_BUDGET, DATAFLOW_REJECTED -> true;
                    case HYDRATED, DUPLICATE_PEEK, REFUSED, PROTOCOL_ERROR -> false;
                };
                if (dataflowEnded) {
                    // A slow-path query whose transient dataflow the replica refused or abandoned fails at once.
                    dispatch.dataflowFailed(s.id(), s.kind() == ComputeResponse.StatusKind.DATAFLOW_OVER_BUDGET
                            ? EvalError.Code.MEMORY_BUDGET : EvalError.Code.DATA_EXCEPTION, s.detail());
                    streams.failed(s.id(), s.detail());
                    indexes.publish(new ControllerEvent(s.kind().jsonName(), null, s.id(), null, false, s.detail()));
                    IndexState failed = s.id() == null ? null : indexes.get(s.id());
                    if (failed != null && s.kind() != ComputeResponse.StatusKind.DATAFLOW_REJECTED && !system.containsKey(failed.index.name())) {
                        indexFailed(failed.index, s.detail());
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ reads and change streams

    /**
     * Answers a read: a fast-path peek of an index when it can, else a slow-path transient dataflow; each
     * admitted by the {@link ReadAdmission} in the subscriber's context (the caller's own limits) before
     * the server's limit of reads in flight.
     */
    public Mono<ReadResult> read(ReadRequest req) {
        return reads.read(req);
    }

    /**
     * A running index on {@code name} usable for key rows of {@code keyArity} columns (-1: any key), or
     * null.
     */
    public CatalogEntry.Index indexOn(String name, int keyArity) {
        return planner.indexOn(name, keyArity);
    }

    /**
     * The schema of the result of {@code byName}, a plan by names, as a read of it names its columns
     * (after the collections' columns, {@code c<i>} where there is no name; repeats suffixed by position).
     */
    public Schema resultSchema(Plan byName) {
        return planner.resultSchema(byName);
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

    /**
     * Resolves a change stream of {@code name} (an index, or a table or view with an index): its keys,
     * filter and projection, checked as for a read, and its start time (an explicit {@code as_of}, at
     * or after the index's compaction frontier, or the serializable read time), held on the index until
     * the returned start is released.
     */
    public ChangeStreamStart startChangeStream(String name, List<Row> keys, Mfp filterProject, Long asOf) {
        return reads.startChangeStream(name, keys, filterProject, asOf);
    }

    /**
     * Resolves a change stream of a query ({@code req.plan()}, a plan by names, or {@code req.from()}):
     * a collection with an index is followed through it; anything else through a transient dataflow the
     * stream owns. A finishing ({@code order_by}, {@code limit}, {@code offset}) is refused.
     */
    public ChangeStreamStart startChangeStream(ReadRequest req) {
        return reads.startChangeStream(req);
    }

    /** The transient dataflows of change streams now running (for tests and introspection). */
    public int transientStreamCount() {
        return streams.count();
    }

    @Override
    public void close() {
        learner.shutdownNow();
        ticker.dispose();
        responses.dispose();
        indexes.close();
    }
}
