package dev.tandem.controller;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.protocol.ComputeCommand;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.UniqueKey;
import dev.tandem.time.Frontier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import reactor.core.scheduler.Scheduler;

/**
 * The catalog's changes: tables, views and indexes created and dropped, each checked against the catalog
 * as this replica knows it and checked again after other replicas' changes came first; the changes other
 * replicas make, learned on a thread of its own; and the indexes served, from their dataflows started to
 * their failures marked. Changes block on durable storage and are serialized on this object.
 */
final class CatalogChanges {

    private static final System.Logger LOG = System.getLogger(CatalogChanges.class.getName());
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    /** How often a catalog change is checked again after other replicas' changes came first. */
    private static final int DEFINE_ATTEMPTS = 10;

    private final TableStorage storage;
    private final Catalog catalog;
    private final Map<String, CatalogEntry.Index> system;
    private final IndexTracker indexes;
    private final ReadPlanner planner;
    private final PeekDispatch dispatch;
    private final TransientStreams streams;
    private final TableWrites writes;
    private final Scheduler timer;
    /** Learns the definitions other replicas make, one run at a time; its thread starts with the first run. */
    private final ExecutorService learner = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tandem-catalog-learner");
        t.setDaemon(true);
        return t;
    });
    /** A learning run is queued and has not started: further changes are covered by it. */
    private final AtomicBoolean learnQueued = new AtomicBoolean();
    private final List<Runnable> afterLearning = new CopyOnWriteArrayList<>();

    CatalogChanges(TableStorage storage, Catalog catalog, Map<String, CatalogEntry.Index> system, IndexTracker indexes, ReadPlanner planner,
            PeekDispatch dispatch, TransientStreams streams, TableWrites writes, Scheduler timer) {
        this.storage = storage;
        this.catalog = catalog;
        this.system = system;
        this.indexes = indexes;
        this.planner = planner;
        this.dispatch = dispatch;
        this.streams = streams;
        this.writes = writes;
        this.timer = timer;
    }

    /** Recovers the stored catalog and starts the indexes in it that had not failed; their ids. */
    List<String> recover() {
        List<CatalogEntry.Index> recovered = catalog.recover().stream().filter(i -> catalog.failure(i.name()) == null).toList();
        for (CatalogEntry.Index i : recovered) {
            startIndex(i);
        }
        return recovered.stream().map(CatalogEntry.Index::id).toList();
    }

    /** Learns the definitions other replicas make from now on, starting with those applied since the catalog was recovered. */
    void watch() {
        storage.watchDefinitions(this::definitionsChanged);
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

    /** Runs {@code hook} after each learning run, on the learner's thread. */
    void afterLearning(Runnable hook) {
        afterLearning.add(hook);
    }

    /** Creates a table (see {@link Controller#createTable(String, List, List, Map, Map, List)}). */
    synchronized CatalogEntry.Table createTable(String name, List<Column> columns, List<CatalogEntry.Key> keys,
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

    /** Creates a view of {@code plan} (by names), its columns named and typed as {@link Controller#createView(String, Plan, List, Map)} says. */
    synchronized CatalogEntry.View createView(String name, Plan plan, List<String> columnNames, Map<String, DeclaredType> declared) {
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

    /**
     * Creates an index on a table or view by key column names (or positions); it hydrates asynchronously.
     * A {@code unique} one (on a table only) also adds its key to the table's storage, in the same log
     * record as its catalog entry, refused if the table's rows already share a value of it.
     */
    synchronized CatalogEntry.Index createIndex(String name, String on, List<String> key, Long windowMillis, boolean unique) {
        return defining(() -> createIndexOnce(name, on, key, windowMillis, unique));
    }

    private CatalogEntry.Index createIndexOnce(String name, String on, List<String> key, Long windowMillis, boolean unique) {
        checkName(name);
        CatalogEntry target = catalog.require(on);
        if (target instanceof CatalogEntry.Index) {
            throw ControllerException.invalid("on: '" + on + "' is an index; index a table or a view");
        }
        if (unique && !(target instanceof CatalogEntry.Table)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND, "'" + on + "' is not a table; only a table has a unique index");
        }
        if (unique && writes.fedReason(on) != null) {
            throw new ControllerException(ControllerException.Reason.FED_BY_SOURCE, "a unique index on table '" + on
                    + "', which a source feeds (the source's writes keep its upstream keys only)");
        }
        for (CatalogEntry e : catalog.all()) {
            if (e instanceof CatalogEntry.Table t && t.keys().stream().anyMatch(k -> k.name().equals(name))) {
                throw new ControllerException(ControllerException.Reason.DUPLICATE, "'" + name + "' already exists (a key of table '" + t.name() + "')");
            }
        }
        if (key == null || key.isEmpty()) {
            throw ControllerException.invalid("key: an index needs at least one key column");
        }
        List<String> keyNames = new ArrayList<>();
        for (String k : key) {
            keyNames.add(target.schema().column(Controller.columnIndex(target.schema(), k, "key")).name());
        }
        if (windowMillis != null && windowMillis < 0) {
            throw ControllerException.invalid("compaction_window_ms must not be negative");
        }
        long window = windowMillis != null ? windowMillis : CatalogEntry.Index.DEFAULT_WINDOW;
        CatalogEntry.Index idx;
        if (unique) {
            if (keyNames.stream().distinct().count() != keyNames.size()) {
                throw ControllerException.invalid("key: a unique index names each column once");
            }
            UniqueKey stored = new UniqueKey(name, keyNames.stream().map(target.schema()::indexOf).toList(), false);
            idx = catalog.define(id -> new CatalogEntry.Index(id, name, on, keyNames, target.schema(), window, true),
                    swap -> storage.addKey(target.id(), stored, swap));
        } else {
            idx = catalog.define(id -> new CatalogEntry.Index(id, name, on, keyNames, target.schema(), window));
        }
        catalog.serve(idx);
        startIndex(idx);
        return idx;
    }

    /**
     * Drops {@code name}, which must be of {@code kind}: a table's primary key index goes with it, and so do
     * the other indexes on a table or view when {@code withIndexes}; what else reads it must be dropped first.
     */
    synchronized void drop(String name, Class<? extends CatalogEntry> kind, boolean withIndexes) {
        defining(() -> {
            dropOnce(name, kind, withIndexes);
            return null;
        });
    }

    private void dropOnce(String name, Class<? extends CatalogEntry> kind, boolean withIndexes) {
        CatalogEntry e = catalog.require(name);
        if (!kind.isInstance(e)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND, "'" + name + "' is not a " + kind.getSimpleName().toLowerCase());
        }
        String fed = e instanceof CatalogEntry.Table ? writes.fedReason(name) : null;
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
        CatalogEntry.Table keyed = e instanceof CatalogEntry.Index i && i.unique()
                ? catalog.get(i.on()).filter(t -> t instanceof CatalogEntry.Table).map(t -> (CatalogEntry.Table) t).orElse(null) : null;
        if (keyed != null) {
            // a unique index's key goes with it, in the same log record
            catalog.remove(removed, swap -> storage.dropKey(keyed.id(), name, swap));
        } else {
            catalog.remove(removed);
        }
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
     * dropped.
     */
    synchronized void learn() {
        catalog.learn(storage.catalogEntries(), Set.copyOf(storage.tables()), this::stopServing, e -> {
            if (e instanceof CatalogEntry.Index i) {
                startIndex(i);
            }
        });
    }

    /** Stops serving a dropped entry: change streams reading it end first, saying why; an index's dataflow goes. */
    private void stopServing(CatalogEntry e) {
        streams.inputDropped(e.name(), e.getClass().getSimpleName().toLowerCase());
        if (e instanceof CatalogEntry.Index i) {
            indexes.untrack(i.id());
            dispatch.send(new ComputeCommand.AllowCompaction(i.id(), Frontier.EMPTY));
        }
    }

    /** Starts serving an index: its dataflow, as of the readable time of what it reads, and its tracked state. */
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

    /**
     * Marks an index whose dataflow failed (e.g. over its memory budget) as failed, durably, so that it
     * is shown as such and not re-hydrated in a loop after a restart; dropping it clears the mark.
     */
    void indexFailed(CatalogEntry.Index index, String error) {
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

    /** Stops learning. */
    void close() {
        learner.shutdownNow();
    }
}
