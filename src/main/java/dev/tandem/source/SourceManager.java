package dev.tandem.source;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.TableStorage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The Kafka sources: tables fed by external topics. A source is a catalog table (readable, indexable,
 * usable in views like any table) that users may not write or drop, plus its definition in the storage
 * catalog ({@code source/<name>}); its ingestion ({@link SourceIngester}) records its progress with the
 * rows it writes. On start every stored source resumes from its recorded offsets. Among replicas over a
 * shared log, each source is ingested by one replica at a time ({@link SourceCoordination}), the sources
 * spread over the replicas ({@link SourceRankAssignor}); the others stand by and serve its table from the
 * log. A source created or dropped through another replica reaches this one through the log: after the
 * controller learns each change of definitions the storage applies ({@link Controller#afterLearning}),
 * the manager compares the stored definitions with the sources it runs, starts the new ones (whose tables
 * the controller now serves) and stops the dropped ones.
 *
 * <p>Changes are serialized and block on durable storage; call them off event-loop threads.
 */
public final class SourceManager implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(SourceManager.class.getName());

    private final Controller controller;
    private final TableStorage storage;
    private final String defaultBootstrapServers;
    private final SourceListener listener;
    private final SourceCoordination coordination;
    private final Map<String, Running> sources = new ConcurrentSkipListMap<>();
    /** This replica's id in the sources' groups (the same in each, so that their ranks agree). */
    private final String replica = UUID.randomUUID().toString();
    /** Tables of sources dropped through another replica, served until the drop of the table itself arrives. */
    private final Set<String> droppedElsewhere = new HashSet<>();
    /** Set by {@link #close}: learning starts no more sources. */
    private boolean closed;
    /** How often a drop tries its guarded removal while another replica's batches keep moving the progress. */
    private static final int DROP_ATTEMPTS = 10;

    /** A source known here: its ingester, or why it cannot run (its table is missing). */
    private record Running(SourceDefinition def, String tableId, SourceIngester ingester, String failure) {
    }

    /**
     * Resumes every source stored in the catalog.
     *
     * @param defaultBootstrapServers the Kafka cluster of a source that names none
     * @param coordination how replicas over a shared log pick each source's ingester; null for a single process
     */
    public SourceManager(Controller controller, TableStorage storage, String defaultBootstrapServers, SourceListener listener,
            SourceCoordination coordination) {
        this.coordination = coordination;
        this.controller = controller;
        this.storage = storage;
        this.defaultBootstrapServers = defaultBootstrapServers;
        this.listener = listener;
        storage.catalogEntries().forEach((key, json) -> {
            if (key.startsWith(SourceIngester.DEFINITION_PREFIX)) {
                resume(SourceDefinition.fromJson(json));
            }
        });
        if (coordination != null) {
            controller.afterLearning(this::learnSafely);
            // Sources defined elsewhere between the controller's start and now are learned here.
            learnSafely();
        }
    }

    private void learnSafely() {
        try {
            learn();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "learning the sources defined through other replicas failed; retrying", e);
        }
    }

    /**
     * Starts the sources whose definitions arrived through the log since this replica started, and stops
     * those whose definitions another replica removed; their tables are served (and forgotten) with them.
     */
    synchronized void learn() {
        if (closed) {
            return;
        }
        Map<String, String> catalog = storage.catalogEntries();
        catalog.forEach((key, json) -> {
            if (key.startsWith(SourceIngester.DEFINITION_PREFIX) && !sources.containsKey(key.substring(SourceIngester.DEFINITION_PREFIX.length()))) {
                SourceDefinition def = SourceDefinition.fromJson(json);
                if (controller.catalog().stream().filter(e -> e.name().equals(def.name())).findFirst().orElse(null)
                        instanceof CatalogEntry.Table table) {
                    LOG.log(System.Logger.Level.INFO, "source '" + def.name() + "' was created through another replica; serving it here");
                    droppedElsewhere.remove(def.name());
                    start(def, table.id());
                }
            }
        });
        for (Running r : List.copyOf(sources.values())) {
            String name = r.def().name();
            if (!catalog.containsKey(SourceIngester.DEFINITION_PREFIX + name)) {
                LOG.log(System.Logger.Level.INFO, "source '" + name + "' was dropped through another replica; stopping it here");
                if (r.ingester() != null) {
                    r.ingester().stop();
                    r.ingester().release();
                    listener.stopped(name);
                }
                sources.remove(name);
                droppedElsewhere.add(name);
            }
        }
        for (String name : List.copyOf(droppedElsewhere)) {
            if (!catalog.containsKey("table/" + name)) {
                controller.feedTable(name, null);
                droppedElsewhere.remove(name);
            }
        }
    }

    private void resume(SourceDefinition def) {
        CatalogEntry table = controller.catalog().stream().filter(e -> e.name().equals(def.name())).findFirst().orElse(null);
        if (!(table instanceof CatalogEntry.Table)) {
            String why = "the source's table '" + def.name() + "' is missing from the catalog; drop the source";
            LOG.log(System.Logger.Level.WARNING, why);
            sources.put(def.name(), new Running(def, null, null, why));
            return;
        }
        start(def, table.id());
    }

    private void start(SourceDefinition def, String tableId) {
        controller.feedTable(def.name(), fedReason(def));
        SourceLease lease = coordination == null ? SourceLease.ALWAYS
                : SourceLease.kafka(coordination, def.name(), replica, this::namesInCreationOrder);
        SourceIngester ingester = new SourceIngester(def, tableId, storage, lease);
        sources.put(def.name(), new Running(def, tableId, ingester, null));
        ingester.start();
        listener.started(def.name());
    }

    /**
     * The names of the sources known here in the order they were created, which every replica agrees on:
     * their tables' ids ({@code u<n>}) are allocated in increasing order, so ordering them by length,
     * then as strings, orders them by {@code n}. A new source ranks last, so creating sources one by one
     * deals them round the replicas; a source whose table is missing takes no rank.
     */
    private List<String> namesInCreationOrder() {
        return sources.values().stream().filter(r -> r.tableId() != null)
                .sorted(Comparator.comparing((Running r) -> r.tableId().length()).thenComparing(Running::tableId))
                .map(r -> r.def().name()).toList();
    }

    private static String fedReason(SourceDefinition def) {
        return "'" + def.name() + "' is the table of the Kafka source '" + def.name() + "' (topic '" + def.topic()
                + "'): only the topic writes its rows; drop it with DELETE /v1/sources/" + def.name();
    }

    /** The Kafka cluster of a source whose definition names none. */
    public String defaultBootstrapServers() {
        return defaultBootstrapServers;
    }

    /** Creates a source: its table, its stored definition, and starts ingesting from the topic's beginning. */
    public synchronized SourceStatus create(SourceDefinition def) {
        String violation = def.violation();
        if (violation != null) {
            throw new ControllerException(ControllerException.Reason.INVALID, violation);
        }
        if (sources.containsKey(def.name())) {
            throw new ControllerException(ControllerException.Reason.DUPLICATE, "source '" + def.name() + "' already exists");
        }
        // Marked before it exists, so no user write can reach the new table first.
        controller.feedTable(def.name(), fedReason(def));
        CatalogEntry.Table table;
        try {
            table = controller.createTable(def.name(), def.columns());
        } catch (RuntimeException e) {
            controller.feedTable(def.name(), null);
            throw e;
        }
        try {
            storage.putCatalogEntry(SourceIngester.DEFINITION_PREFIX + def.name(), def.toJson());
        } catch (RuntimeException e) {
            controller.feedTable(def.name(), null);
            controller.drop(def.name(), CatalogEntry.Table.class);
            throw e;
        }
        start(def, table.id());
        return status(def.name());
    }

    /**
     * Drops a source: stops its ingestion, removes its definition, progress and refused records in one
     * storage write, then drops its table. Refused (409) while views or indexes read it.
     */
    public synchronized void drop(String name) {
        Running r = require(name);
        List<String> dependents = controller.dependents(name);
        if (!dependents.isEmpty()) {
            throw new ControllerException(ControllerException.Reason.DEPENDENT,
                    "source '" + name + "' is used by " + String.join(", ", dependents) + "; drop them first");
        }
        if (r.ingester() != null) {
            r.ingester().stop();
            listener.stopped(name);
        }
        try {
            if (r.tableId() != null) {
                removeGuarded(name, r.tableId());
            } else {
                removes(name, storage.catalogEntries()).forEach(storage::removeCatalogEntry);
            }
        } catch (RuntimeException e) {
            if (r.ingester() != null) {
                r.ingester().release();
                start(r.def(), r.tableId());
            }
            throw e;
        }
        if (r.ingester() != null) {
            // Only now, with the source's progress removed, may another replica's ingester get the lease.
            r.ingester().release();
        }
        sources.remove(name);
        controller.feedTable(name, null);
        if (r.tableId() != null) {
            controller.drop(name, CatalogEntry.Table.class);
        }
    }

    /**
     * Removes the source's definition, progress and refused records in one write guarded by the recorded
     * progress. Another replica may be ingesting the source until the removal reaches it, and each of its
     * batches moves the progress: a refused guard is retried, from the catalog as it is then, a few times.
     */
    private void removeGuarded(String name, String tableId) {
        String progressKey = SourceIngester.progressKey(name);
        for (int attempt = 1; ; attempt++) {
            Map<String, String> catalog = storage.catalogEntries();
            try {
                storage.write(tableId, List.of(), new CatalogSwap(progressKey, catalog.get(progressKey), Map.of(), removes(name, catalog))).block();
                return;
            } catch (IllegalArgumentException e) {
                if (attempt >= DROP_ATTEMPTS) {
                    throw e;
                }
                LOG.log(System.Logger.Level.INFO, "dropping source '" + name + "': " + e.getMessage() + "; retrying (another replica may still ingest it)");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100L * attempt));
            }
        }
    }

    private static List<String> removes(String name, Map<String, String> catalog) {
        List<String> removes = new ArrayList<>();
        removes.add(SourceIngester.DEFINITION_PREFIX + name);
        removes.add(SourceIngester.progressKey(name));
        String errors = SourceIngester.ERROR_PREFIX + name + "/";
        catalog.keySet().stream().filter(k -> k.startsWith(errors)).forEach(removes::add);
        return removes;
    }

    /** The sources, by name. */
    public List<SourceStatus> list() {
        return sources.keySet().stream().map(this::statusOrNull).filter(s -> s != null).toList();
    }

    /** One source's status; 404 if there is none by that name. */
    public SourceStatus status(String name) {
        SourceStatus s = statusOrNull(name);
        if (s == null) {
            throw new ControllerException(ControllerException.Reason.UNKNOWN_OBJECT, "no source named '" + name + "'");
        }
        return s;
    }

    private SourceStatus statusOrNull(String name) {
        Running r = sources.get(name);
        if (r == null) {
            return null;
        }
        if (r.ingester() == null) {
            return new SourceStatus(r.def(), 0, Map.of(), Map.of(), -1, 0, 0, "failed", r.failure(), false, 0);
        }
        return r.ingester().status();
    }

    /** The records every source refused, the most recent {@value SourceIngester#MAX_ERRORS} per source. */
    public List<SourceError> errors() {
        List<SourceError> out = new ArrayList<>();
        for (Running r : sources.values()) {
            if (r.ingester() != null) {
                out.addAll(r.ingester().errors());
            }
        }
        return out;
    }

    private Running require(String name) {
        Running r = sources.get(name);
        if (r == null) {
            throw new ControllerException(ControllerException.Reason.UNKNOWN_OBJECT, "no source named '" + name + "'");
        }
        return r;
    }

    /** Stops every ingestion (what it wrote is durable with its offsets). */
    @Override
    public synchronized void close() {
        closed = true;
        for (Running r : sources.values()) {
            if (r.ingester() != null) {
                r.ingester().stop();
                r.ingester().release();
            }
        }
    }
}
