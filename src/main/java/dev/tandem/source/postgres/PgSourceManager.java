package dev.tandem.source.postgres;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.row.Column;
import dev.tandem.source.SourceListener;
import dev.tandem.sql.SqlSources;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.TableStorage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.postgresql.PGConnection;
import org.postgresql.replication.ReplicationSlotInfo;

/**
 * The PostgreSQL sources: each replicates the tables of an upstream publication into Tandem tables
 * (read-only to users) through a logical replication slot of its own. Creating one checks everything
 * upstream first and creates nothing if a check fails; its definition ({@link PgSourceDefinition}) and
 * position ({@link PgProgress}) live in the storage catalog, so on start every stored source resumes
 * where it durably stopped. Dropping one stops it, drops its slot upstream, then its tables.
 *
 * <p>Passwords come from {@code secrets} (the property {@code tandem.secrets.<name>}) each time a source
 * connects, and are never stored. Changes are serialized and block; call them off event-loop threads.
 */
public final class PgSourceManager implements SqlSources, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(PgSourceManager.class.getName());
    private static final long DROP_SLOT_WAIT_NANOS = TimeUnit.SECONDS.toNanos(15);

    private final Controller controller;
    private final TableStorage storage;
    private final Function<String, String> secrets;
    private final SourceListener listener;
    private final Map<String, Running> sources = new ConcurrentSkipListMap<>();

    /** A source known here: its ingester, or why it cannot run. */
    private record Running(PgSourceDefinition def, PgSourceIngester ingester, String failure) {
    }

    /** A source's status, for {@code GET /v1/sources/{name}} and introspection. */
    public record Status(String name, String publication, String slot, List<String> tables, String state, String detail, String lsn,
            long rowsCopied, long transactions, double lagSeconds, long bytesBehind, Map<String, String> tableErrors) {
    }

    /**
     * Resumes every PostgreSQL source stored in the catalog.
     *
     * @param secrets a secret's value by name (null when there is none)
     */
    public PgSourceManager(Controller controller, TableStorage storage, Function<String, String> secrets) {
        this(controller, storage, secrets, SourceListener.NONE);
    }

    /** As above, telling {@code listener} (the metrics) when a source starts and when it is dropped. */
    public PgSourceManager(Controller controller, TableStorage storage, Function<String, String> secrets, SourceListener listener) {
        this.listener = listener;
        this.controller = controller;
        this.storage = storage;
        this.secrets = secrets;
        storage.catalogEntries().forEach((key, json) -> {
            if (key.startsWith(PgSourceDefinition.DEFINITION_PREFIX)) {
                resume(PgSourceDefinition.fromJson(json));
            }
        });
    }

    private void resume(PgSourceDefinition def) {
        Map<String, String> ids = new LinkedHashMap<>();
        for (PgSourceDefinition.Table t : def.tables()) {
            controller.feedTable(t.local(), reason(def, t));
            CatalogEntry e = controller.catalog().stream().filter(x -> x.name().equals(t.local())).findFirst().orElse(null);
            if (e instanceof CatalogEntry.Table table) {
                ids.put(t.local(), table.id());
            } else {
                String why = "the source's table '" + t.local() + "' is missing from the catalog; drop the source";
                sources.put(def.name(), new Running(def, null, why));
                return;
            }
        }
        PgSourceIngester ingester = new PgSourceIngester(def, connect(def), ids, storage, null, listener);
        sources.put(def.name(), new Running(def, ingester, null));
        ingester.start();
        listener.started(def.name());
    }

    private PgConnect connect(PgSourceDefinition def) {
        return PgConnect.of(def.connection(), def.passwordSecret() == null ? null : password(def.passwordSecret()));
    }

    private String password(String secret) {
        String value = secrets.apply(secret);
        if (value == null) {
            throw invalid("no secret named '" + secret + "': set the property tandem.secrets." + secret);
        }
        return value;
    }

    private static String reason(PgSourceDefinition def, PgSourceDefinition.Table t) {
        return "'" + t.local() + "' is replicated from PostgreSQL table " + t.qualified() + " by the source '" + def.name()
                + "': only the upstream writes its rows; drop it with DROP SOURCE " + def.name();
    }

    private static ControllerException invalid(String message) {
        return new ControllerException(ControllerException.Reason.INVALID, message);
    }

    /** Creates a PostgreSQL source: every check upstream, its slot, its tables, its definition; then the copy starts. */
    @Override
    public synchronized void createPostgres(CreatePostgres s) {
        if (sources.containsKey(s.name()) || storage.catalogEntries().containsKey(PgSourceDefinition.definitionKey(s.name()))) {
            throw new ControllerException(ControllerException.Reason.DUPLICATE, "source '" + s.name() + "' already exists");
        }
        PgConnect connect;
        try {
            connect = PgConnect.of(s.connection(), s.passwordSecret() == null ? null : password(s.passwordSecret()));
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        List<PgSchemaReader.Wanted> wanted = s.tables() == null ? null
                : s.tables().stream().map(t -> new PgSchemaReader.Wanted(t[0], t[1])).toList();
        List<PgSourceDefinition.Table> tables;
        try (Connection c = connect.plain()) {
            tables = PgSchemaReader.read(c, s.publication(), wanted, new HashSet<>(s.textColumns()));
        } catch (SQLException e) {
            throw invalid("could not read the upstream PostgreSQL at " + connect.describe() + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
        Set<String> locals = new HashSet<>();
        for (PgSourceDefinition.Table t : tables) {
            if (!locals.add(t.local())) {
                throw invalid("two upstream tables would both become '" + t.local() + "'; rename one with AS");
            }
            if (controller.catalog().stream().anyMatch(e -> e.name().equals(t.local()))) {
                throw new ControllerException(ControllerException.Reason.DUPLICATE, "'" + t.local() + "' already exists in Tandem; rename the upstream table "
                        + t.qualified() + " with FOR TABLES (" + t.name() + " AS other_name)");
            }
        }
        String slot = slotName(s.name());
        PgSourceDefinition def = new PgSourceDefinition(s.name(), s.connection(), s.passwordSecret(), s.publication(), slot, tables);
        Connection replication;
        ReplicationSlotInfo info;
        try {
            replication = connect.replication();
        } catch (SQLException e) {
            throw invalid("could not open a replication connection to " + connect.describe() + " (the user needs the REPLICATION attribute): "
                    + e.getMessage());
        }
        try {
            info = replication.unwrap(PGConnection.class).getReplicationAPI().createReplicationSlot().logical()
                    .withSlotName(slot).withOutputPlugin("pgoutput").make();
        } catch (SQLException e) {
            close(replication);
            throw invalid("could not create the replication slot '" + slot + "' upstream: " + e.getMessage());
        }
        Map<String, String> ids = new LinkedHashMap<>();
        try {
            for (PgSourceDefinition.Table t : tables) {
                controller.feedTable(t.local(), reason(def, t));
                boolean primary = !t.key().isEmpty() && t.key().stream().allMatch(k -> t.columns().stream()
                        .anyMatch(c -> c.name().equals(k) && !c.nullable()));
                List<CatalogEntry.Key> keys = primary ? List.of(new CatalogEntry.Key(null, t.key(), true)) : List.of();
                ids.put(t.local(), controller.createTable(t.local(), t.columns(), keys).id());
            }
            String defKey = PgSourceDefinition.definitionKey(s.name());
            storage.changeCatalog(new CatalogSwap(defKey, null, Map.of(defKey, def.toJson(),
                    PgSourceDefinition.progressKey(s.name()), new PgProgress(false, info.getConsistentPoint().asLong(), 0, Map.of()).toJson()), List.of()));
        } catch (RuntimeException e) {
            for (PgSourceDefinition.Table t : tables) {
                // the mark first: a fed table refuses to be dropped
                controller.feedTable(t.local(), null);
                if (ids.containsKey(t.local())) {
                    try {
                        controller.dropWithIndexes(t.local(), CatalogEntry.Table.class);
                    } catch (RuntimeException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
            }
            close(replication);
            dropSlot(connect, slot);
            throw e;
        }
        PgSourceIngester ingester = new PgSourceIngester(def, connect, ids, storage,
                new PgSourceIngester.Initial(replication, info.getSnapshotName(), info.getConsistentPoint().asLong()), listener);
        sources.put(s.name(), new Running(def, ingester, null));
        ingester.start();
        listener.started(s.name());
    }

    @Override
    public reactor.core.publisher.Mono<Void> awaitUpstream(String lsn, java.time.Duration timeout) {
        long target;
        try {
            target = org.postgresql.replication.LogSequenceNumber.valueOf(lsn).asLong();
        } catch (RuntimeException e) {
            return reactor.core.publisher.Mono.error(invalid("not an upstream position: '" + lsn + "'"));
        }
        if (reached(target)) {
            return reactor.core.publisher.Mono.empty();
        }
        return reactor.core.publisher.Flux.interval(java.time.Duration.ofMillis(2)).filter(t -> reached(target)).next().then()
                .timeout(timeout, reactor.core.publisher.Mono.error(() -> new ControllerException(ControllerException.Reason.TIMEOUT,
                        "the PostgreSQL sources have not applied the upstream through " + lsn + " within " + timeout.toMillis() + " ms (now at "
                                + sources.values().stream().filter(r -> r.ingester() != null).map(r -> r.def().name() + " "
                                        + lsn(r.ingester().appliedThrough())).toList() + ")")));
    }

    /** Whether every running source has applied its upstream through {@code lsn} (true when there are none). */
    private boolean reached(long lsn) {
        return sources.values().stream().allMatch(r -> r.ingester() == null || Long.compareUnsigned(r.ingester().appliedThrough(), lsn) >= 0);
    }

    /** A slot name of the source's (lower case letters, digits and underscores, at most 63 characters) that no other source has. */
    private static String slotName(String source) {
        String base = source.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (base.length() > 40) {
            base = base.substring(0, 40);
        }
        return "tandem_" + base + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    }

    /** Drops a source: stops it, drops its slot upstream, removes its definition and position, drops its tables. */
    @Override
    public synchronized boolean drop(String name) {
        Running r = sources.get(name);
        if (r == null) {
            return false;
        }
        List<String> views = new ArrayList<>();
        for (PgSourceDefinition.Table t : r.def().tables()) {
            for (String d : controller.dependents(t.local())) {
                if (controller.catalog().stream().anyMatch(e -> e.name().equals(d) && !(e instanceof CatalogEntry.Index))) {
                    views.add(d);
                }
            }
        }
        if (!views.isEmpty()) {
            throw new ControllerException(ControllerException.Reason.DEPENDENT,
                    "source '" + name + "' is used by " + String.join(", ", views) + "; drop them first");
        }
        if (r.ingester() != null) {
            r.ingester().stop();
        }
        try {
            dropSlot(connect(r.def()), r.def().slot());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "source '" + name + "': could not drop the replication slot '" + r.def().slot()
                    + "' upstream (" + e.getMessage() + "); drop it there with SELECT pg_drop_replication_slot('" + r.def().slot() + "')");
        }
        String defKey = PgSourceDefinition.definitionKey(name);
        Map<String, String> catalog = storage.catalogEntries();
        storage.changeCatalog(new CatalogSwap(defKey, catalog.get(defKey), Map.of(), List.of(defKey, PgSourceDefinition.progressKey(name))));
        sources.remove(name);
        listener.stopped(name);
        for (PgSourceDefinition.Table t : r.def().tables()) {
            controller.feedTable(t.local(), null);
            if (controller.catalog().stream().anyMatch(e -> e.name().equals(t.local()) && e instanceof CatalogEntry.Table)) {
                controller.dropWithIndexes(t.local(), CatalogEntry.Table.class);
            }
        }
        return true;
    }

    /**
     * Drops the slot upstream, waiting (bounded) while the walsender that used it lets go; a slot that
     * is already gone is fine. Throws if the upstream cannot be reached or the slot stays in use.
     */
    private static void dropSlot(PgConnect connect, String slot) {
        long deadline = System.nanoTime() + DROP_SLOT_WAIT_NANOS;
        try (Connection c = connect.plain(); PreparedStatement s = c.prepareStatement("SELECT pg_drop_replication_slot(slot_name)"
                + " FROM pg_replication_slots WHERE slot_name = ?")) {
            s.setString(1, slot);
            while (true) {
                try {
                    s.execute();
                    return;
                } catch (SQLException e) {
                    if (!"55006".equals(e.getSQLState()) || System.nanoTime() > deadline) {
                        throw e;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    /** The sources, by name. */
    public List<Status> list() {
        return sources.keySet().stream().map(this::statusOrNull).filter(s -> s != null).toList();
    }

    /** One source's status, or null if there is none by that name. */
    public Status statusOrNull(String name) {
        Running r = sources.get(name);
        if (r == null) {
            return null;
        }
        List<String> tables = r.def().tables().stream().map(t -> t.qualified() + " AS " + t.local()).toList();
        if (r.ingester() == null) {
            return new Status(name, r.def().publication(), r.def().slot(), tables, "failed", r.failure(), null, 0, 0, 0, 0, Map.of());
        }
        PgSourceIngester.Status s = r.ingester().status();
        return new Status(name, r.def().publication(), r.def().slot(), tables, s.state(), s.detail(), lsn(s.lsn()), s.rowsCopied(),
                s.transactions(), s.lagSeconds(), s.bytesBehind(), s.tableErrors());
    }

    /** The tables' columns of a source, for tests and the console. */
    List<Column> columns(String source, String table) {
        return sources.get(source).def().tables().stream().filter(t -> t.local().equals(table)).findFirst().orElseThrow().columns();
    }

    static String lsn(long lsn) {
        return Long.toHexString(lsn >>> 32).toUpperCase(Locale.ROOT) + "/" + Long.toHexString(lsn & 0xffffffffL).toUpperCase(Locale.ROOT);
    }

    private static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // best effort
        }
    }

    /** Stops every source; each resumes from its durable position on the next start. */
    @Override
    public synchronized void close() {
        for (Running r : sources.values()) {
            if (r.ingester() != null) {
                r.ingester().stop();
            }
        }
    }
}
