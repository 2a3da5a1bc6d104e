package dev.tandem.controller;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Mfp;
import dev.tandem.multiplex.Multiplexer;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.protocol.ComputeParameters;
import dev.tandem.protocol.ComputeResponse;
import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.runtime.Introspection;
import dev.tandem.sharing.ArrangementSharingRegistry;
import dev.tandem.sharing.Publication;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.RowsGoneException;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.UniqueViolationException;
import dev.tandem.storage.WriteRefusal;
import dev.tandem.time.Frontier;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The built-in controller of standalone mode: the durable catalog of tables, views and indexes, and the
 * facade through which the API, SQL, change streams and sources act on it and read, in front of the
 * compute replica (a {@link Multiplexer}). It takes typed requests (the API decodes JSON first) and
 * delegates each concern to a class of its own: {@link CatalogChanges} (creating, dropping and learning
 * tables, views and indexes, and serving the indexes), {@link TableDefinition} (a new table's checks),
 * {@link TableWrites} (users' writes to tables), {@link Reads} (the read paths and the starts of change streams), {@link ReadPlanner} (index choice, plan expansion,
 * result schemas, dataflow descriptions), {@link ReadPolicy} (read times, holds, compaction, under one
 * lock), {@link PeekDispatch} (commands out, peek answers in), {@link IndexTracker} (index state,
 * frontiers, events) and {@link TransientStreams} (the dataflows change streams own).
 *
 * <p>Reads: an MFP over one indexed collection is a fast-path peek of the index; any other read is a
 * slow-path transient dataflow ({@code t} id, {@code as_of = t}, {@code until = t+1}) that imports the
 * indexes it can as shared arrangements, is peeked once, then dropped.
 *
 * <p>Catalog changes block on durable storage and are serialized ({@link CatalogChanges}); call them off
 * event-loop threads. Reads are asynchronous. While a peek is in flight its read time is held on its
 * inputs; a timed-out peek is canceled before its hold is released.
 */
public final class Controller implements AutoCloseable {

    /** How far beyond the present an explicit {@code as_of} may lie; further is refused, not waited for. */
    static final long MAX_AS_OF_AHEAD_MS = 3_600_000;
    /** The longest a read may ask to wait ({@code timeout_ms}). */
    static final long MAX_TIMEOUT_MS = 600_000;

    private final TableStorage storage;
    private final Multiplexer compute;
    private final ArrangementSharingRegistry registry;
    private final Catalog catalog;
    private final AtomicReference<ControllerSettings> settings;
    private final PeekDispatch dispatch;
    private final IndexTracker indexes = new IndexTracker();
    private final ReadPolicy policy;
    private final ReadPlanner planner;
    private final AccessPaths paths;
    /** The introspection collections, served like indexes but not in the durable catalog. */
    private final Map<String, CatalogEntry.Index> system = new LinkedHashMap<>();
    private final TransientStreams streams;
    private final Reads reads;
    private final TableWrites writes;
    private final CatalogChanges changes;
    private final Disposable responses;
    private final Disposable ticker;
    private volatile List<String> recovering = List.of();

    public Controller(TableStorage storage, Multiplexer compute, ArrangementSharingRegistry registry, ControllerSettings settings,
            LongSupplier clock, Scheduler timer) {
        this.storage = storage;
        this.compute = compute;
        this.registry = registry;
        this.catalog = new Catalog(storage);
        this.settings = new AtomicReference<>(settings);
        this.dispatch = new PeekDispatch(compute, timer);
        this.policy = new ReadPolicy(storage, clock, this.settings::get, indexes, dispatch);
        AccessPaths paths = new AccessPaths(catalog, system, indexes);
        this.paths = paths;
        this.planner = new ReadPlanner(catalog, indexes, storage, paths);
        this.streams = new TransientStreams(planner, policy, indexes, dispatch, catalog::allocateTransientId, timer);
        this.reads = new Reads(catalog, system, indexes, planner, paths, policy, dispatch, streams, this.settings::get, clock);
        this.writes = new TableWrites(catalog, storage);
        this.changes = new CatalogChanges(storage, catalog, system, indexes, planner, dispatch, streams, writes, timer);
        this.responses = compute.responses().subscribe(this::receive);
        dispatch.send(new ComputeCommand.Hello(UUID.randomUUID().toString()));
        dispatch.send(new ComputeCommand.CreateInstance(Map.of(), new ComputeParameters(settings.maxResultRows())));
        for (Introspection.Collection c : Introspection.ALL) {
            CatalogEntry.Index entry = new CatalogEntry.Index(c.id(), c.name(), c.name(), List.of(c.schema().column(0).name()), c.schema(),
                    CatalogEntry.Index.DEFAULT_WINDOW);
            system.put(c.name(), entry);
            indexes.track(IndexState.introspection(entry));
        }
        recovering = changes.recover();
        dispatch.send(new ComputeCommand.InitializationComplete());
        this.ticker = Flux.interval(Duration.ofMillis(50), timer).subscribe(x -> policy.compact());
        // Changes applied between reading the catalog above and watching are learned by its first run.
        changes.watch();
    }

    /**
     * Runs {@code hook} after each learning run ({@link #learn}), on the learner's thread (the sources start
     * and stop the sources defined and dropped through other replicas this way).
     */
    public void afterLearning(Runnable hook) {
        changes.afterLearning(hook);
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

    public CatalogEntry.Table createTable(String name, List<Column> columns) {
        return createTable(name, columns, List.of());
    }

    /**
     * Creates a table with unique keys: writes that would leave two rows with one value of a key are
     * refused ({@link UniqueViolationException}). A key without a name is named as PostgreSQL names it
     * ({@code <table>_pkey}, {@code <table>_<columns>_key}); a primary key makes its columns NOT NULL and
     * comes with an index of its name on its columns, created with the table.
     */
    public CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys) {
        return createTable(name, columns, keys, Map.of());
    }

    /** Creates a table with unique keys (as above) and constant column defaults by column name, kept with it in the catalog. */
    public CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys, Map<String, Object> defaults) {
        return createTable(name, columns, keys, defaults, Map.of());
    }

    /**
     * Creates a table as above whose columns named in {@code declared} have that SQL type: every write
     * fits its values to it ({@link DeclaredType#fit}), as the column's default is fitted here.
     */
    public CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys,
            Map<String, Object> defaults, Map<String, DeclaredType> declared) {
        return createTable(name, columns, keys, defaults, declared, List.of());
    }

    /**
     * Creates a table as above with {@code CHECK} constraints: a write that adds a row that makes one of them
     * false is refused whole ({@link CheckViolationException}).
     */
    public CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys,
            Map<String, Object> defaults, Map<String, DeclaredType> declared, List<CatalogEntry.Check> checks) {
        return changes.createTable(name, columns, keys, defaults, declared, checks);
    }

    /** Creates a view of {@code plan} (by names); {@code columnNames} null names its columns after the plan's. */
    public CatalogEntry.View createView(String name, Plan plan, List<String> columnNames) {
        return createView(name, plan, columnNames, Map.of());
    }

    /**
     * Creates a view whose columns named in {@code declared} have those SQL types (an int64 column typed
     * {@code integer} or {@code smallint}, as the query defining it types it).
     */
    public CatalogEntry.View createView(String name, Plan plan, List<String> columnNames, Map<String, DeclaredType> declared) {
        return changes.createView(name, plan, columnNames, declared);
    }

    /** Creates an index on a table or view by key column names (or positions); it hydrates asynchronously. */
    public CatalogEntry.Index createIndex(String name, String on, List<String> key, Long windowMillis) {
        return changes.createIndex(name, on, key, windowMillis, false);
    }

    /**
     * Creates a unique index on a table ({@code CREATE UNIQUE INDEX}): an index as {@link #createIndex}
     * makes, whose key (named as the index) the table then keeps as it keeps the unique keys it was created
     * with, every write checked against it. Refused ({@link UniqueViolationException}) if the table's rows
     * already share a non-NULL value of the key; nothing is created then.
     */
    public CatalogEntry.Index createUniqueIndex(String name, String on, List<String> key) {
        return changes.createIndex(name, on, key, null, true);
    }

    public void drop(String name, Class<? extends CatalogEntry> kind) {
        changes.drop(name, kind, false);
    }

    /**
     * Drops a table or view with the indexes on it, together, as SQL's {@code DROP TABLE} and {@code DROP VIEW}
     * do in PostgreSQL; a view that reads it must still be dropped first (nothing is dropped then).
     */
    public void dropWithIndexes(String name, Class<? extends CatalogEntry> kind) {
        changes.drop(name, kind, true);
    }

    /**
     * Brings the catalog up to the stored one: serves the tables, views and indexes other replicas over a
     * shared log defined (a learned index hydrates like a recovered one) and stops serving those they
     * dropped. Runs after every change of definitions the storage applies ({@link TableStorage#watchDefinitions}),
     * and before a definition here is checked again.
     */
    public void learn() {
        changes.learn();
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
        writes.feed(name, reason);
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
        } catch (WriteRefusal e) {
            if (e.reason() != WriteRefusal.Reason.UNKNOWN_TABLE) {
                throw e;
            }
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

    // ------------------------------------------------------------------ writes

    /**
     * Table {@code table}, if users may write to it: not found (404), not a table (422) and fed by a
     * source (409) are refused.
     */
    public CatalogEntry.Table writableTable(String table) {
        return writes.writableTable(table);
    }

    /**
     * Writes rows (of the table's schema) to a table; completes with the write's timestamp once it is
     * durable.
     */
    public Mono<Long> write(String table, List<RowDiff> diffs) {
        return writes.write(table, diffs);
    }

    /**
     * Writes rows to {@code table} as it was when they were made (a transaction block's writes at its
     * commit): refused ({@code 409}) if that table was dropped since, even if another of its name took its
     * place. A delete of rows deleted since is refused with a {@link RowsGoneException} and a key
     * violation with a {@link UniqueViolationException}, both naming the table by its name.
     */
    public Mono<Long> write(CatalogEntry.Table table, List<RowDiff> diffs) {
        return writes.write(table, diffs);
    }

    /**
     * Writes rows to several tables, each as it was when its rows were made (a transaction block's writes
     * at its commit), at one timestamp in one durable log record: all of it or nothing. Refused as
     * {@link #write(CatalogEntry.Table, List)} refuses, for any of the tables.
     */
    public Mono<Long> writeTables(Map<CatalogEntry.Table, List<RowDiff>> changes) {
        return writes.writeTables(changes);
    }

    /** {@code diffs} fitted to {@code table}'s declared types and checked against its CHECK constraints ({@link WrittenRows#fitted}). */
    public static List<RowDiff> fitted(CatalogEntry.Table table, List<RowDiff> diffs) {
        return WrittenRows.fitted(table, diffs);
    }

    // ------------------------------------------------------------------ compute's responses

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
                        changes.indexFailed(failed.index, s.detail());
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
        return paths.indexOn(name, keyArity);
    }

    /**
     * The access path {@code req} takes if it runs now ({@link AccessPaths}: the one chooser of reads); a read
     * given it runs it while its index runs, else chooses again.
     */
    public AccessPath accessPath(ReadRequest req) {
        if ((req.from() == null) == (req.plan() == null)) {
            throw ControllerException.invalid("give exactly one of 'from' and 'plan'");
        }
        return paths.choose(req);
    }

    /**
     * The running index on collection {@code name} a lookup goes through when a filter pins the columns
     * {@code pinned} to one value each (the one with the most key columns, all pinned), or null.
     */
    public CatalogEntry.Index lookupIndex(String name, Set<String> pinned) {
        return paths.lookupIndex(name, pinned);
    }

    /**
     * The plan a transient dataflow of {@code byName} computes, as EXPLAIN shows it: views inlined, each
     * collection with a running index read through it, every {@code get} by the name of the table or index it reads.
     */
    public Plan explainedPlan(Plan byName) {
        return planner.explained(byName);
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
        changes.close();
        ticker.dispose();
        responses.dispose();
        indexes.close();
    }
}
