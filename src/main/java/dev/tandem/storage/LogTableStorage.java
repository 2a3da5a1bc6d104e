package dev.tandem.storage;

import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import dev.tandem.trace.TraceSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The table storage over a {@link Journal}, for both the durable log and the in-memory journal: a
 * facade over the parts that do the work, each with its own job and threading rule.
 * <ul>
 *   <li>{@link AppliedTables}: the tables, catalog, timestamp oracle and upper as applied from the
 *       log, under one lock;</li>
 *   <li>{@link WriteAdmission}: checks each change against the tables as admitted changes will leave
 *       them, and enqueues it, so the log order is the admission order;</li>
 *   <li>{@link GroupCommit}: the commit thread that logs, forces and applies batches and completes the
 *       callers;</li>
 *   <li>{@link TableSubscriptions}: primes subscribers and publishes writes and frontiers to them;</li>
 *   <li>{@link LogCompaction}: rewrites the log as the consolidated tables;</li>
 *   <li>{@link StorageHealth}: whether the log takes writes (a full disk makes it unavailable until a
 *       write or probe succeeds; a log in an unknown state stops it for good).</li>
 * </ul>
 * Locks are taken in one order: the admission lock, then the applied tables' lock.
 */
final class LogTableStorage implements TableStorage {

    private final Journal journal;
    private final AppliedTables applied;
    private final TableSubscriptions subscriptions;
    private final StorageHealth health = new StorageHealth();
    private final WriteAdmission admission;
    private final LogCompaction compaction;
    private final GroupCommit commit;
    private final Disposable ticker;
    private final Disposable compactionChecker;
    private final List<StorageError> errors;

    static final String REPAIRED = "negative multiplicity (written before deletes were checked against the table's counts);"
            + " brought to zero by a compensating insert at time ";
    private static final Duration REPAIR_TIMEOUT = Duration.ofSeconds(60);
    private static final System.Logger LOG = System.getLogger(LogTableStorage.class.getName());

    LogTableStorage(Journal journal, StorageOptions options) {
        this.journal = journal;
        this.applied = new AppliedTables(new TimestampOracle(options.clockMillis()));
        this.subscriptions = new TableSubscriptions(applied, options.clockMillis());
        try {
            applied.recover(journal, subscriptions::dropped);
        } catch (RuntimeException e) {
            journal.close();
            throw e;
        }
        this.admission = new WriteAdmission(applied, health, options.checkDeletes());
        this.compaction = new LogCompaction(applied, journal, health, admission);
        this.commit = new GroupCommit(journal, applied, subscriptions, admission, compaction, health, options.tickerNanos());
        commit.start();
        errors = repair(applied.negatives);
        long tick = options.tickInterval().toNanos();
        ticker = options.scheduler().schedulePeriodically(this::tick, tick, tick, TimeUnit.NANOSECONDS);
        long check = options.compactionInterval().toNanos();
        compactionChecker = options.scheduler().schedulePeriodically(compaction::compactIfGrown, check, check, TimeUnit.NANOSECONDS);
    }

    // ---- tables and catalog -------------------------------------------------------------------

    @Override
    public void createTable(String id, Schema schema, List<UniqueKey> keys) {
        commit.await(admission.createTable(id, schema, keys));
    }

    @Override
    public List<UniqueKey> keys(String id) {
        synchronized (applied.lock) {
            return applied.table(id).keys;
        }
    }

    @Override
    public void dropTable(String id) {
        commit.await(admission.dropTable(id));
    }

    @Override
    public void addKey(String id, UniqueKey key, CatalogSwap swap) {
        commit.await(admission.addKey(id, key, swap));
    }

    @Override
    public void dropKey(String id, String name, CatalogSwap swap) {
        commit.await(admission.dropKey(id, name, swap));
    }

    @Override
    public Schema schema(String id) {
        synchronized (applied.lock) {
            return applied.table(id).schema;
        }
    }

    @Override
    public List<String> tables() {
        synchronized (applied.lock) {
            return applied.tables.keySet().stream().sorted().toList();
        }
    }

    @Override
    public void putCatalogEntry(String key, String json) {
        commit.await(admission.putCatalogEntry(key, json));
    }

    @Override
    public void removeCatalogEntry(String key) {
        commit.await(admission.removeCatalogEntry(key));
    }

    @Override
    public void changeCatalog(CatalogSwap swap) {
        commit.await(admission.changeCatalog(swap));
    }

    @Override
    public Map<String, String> catalogEntries() {
        synchronized (applied.lock) {
            return Collections.unmodifiableMap(new TreeMap<>(applied.catalog));
        }
    }

    // ---- writes ---------------------------------------------------------------------------------

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates) {
        return admission.write(id, updates, null);
    }

    @Override
    public Mono<Long> write(String id, List<RowDiff> updates, CatalogSwap swap) {
        return admission.write(id, updates, swap);
    }

    @Override
    public Mono<Long> writeTables(Map<String, List<RowDiff>> updates, CatalogSwap swap) {
        return admission.writeTables(updates, swap, true);
    }

    @Override
    public Mono<Long> writeTablesKeysGuaranteed(Map<String, List<RowDiff>> updates, CatalogSwap swap) {
        return admission.writeTables(updates, swap, false);
    }

    // ---- reading ------------------------------------------------------------------------------

    @Override
    public Flux<TableEvent> subscribe(String id, long asOf) {
        return subscriptions.subscribe(id, asOf);
    }

    @Override
    public Frontier upper(String id) {
        synchronized (applied.lock) {
            applied.table(id);
            return Frontier.at(applied.upper);
        }
    }

    @Override
    public Frontier since(String id) {
        synchronized (applied.lock) {
            return Frontier.at(applied.table(id).since);
        }
    }

    @Override
    public java.util.Map<dev.tandem.row.Row, Long> rowsWithKey(String id, dev.tandem.row.Row key) {
        StoredTable t;
        synchronized (applied.lock) {
            t = applied.table(id);
        }
        return t.applied().rowsWithKey(key);
    }

    @Override
    public long records(String id) {
        synchronized (applied.lock) {
            return applied.table(id).size();
        }
    }

    @Override
    public void allowCompaction(String id, Frontier since) {
        Objects.requireNonNull(since, "since");
        if (since.isEmpty()) {
            throw new IllegalArgumentException("table '" + id + "': compaction to the empty frontier is a drop; use dropTable");
        }
        synchronized (applied.lock) {
            applied.table(id).advanceSince(since.time());
        }
    }

    @Override
    public long lastWriteTime() {
        synchronized (applied.lock) {
            return applied.lastApplied;
        }
    }

    @Override
    public void compact() {
        commit.await(admission.control(CommitOp.Kind.COMPACT));
    }

    @Override
    public List<StorageError> errors() {
        return errors;
    }

    /**
     * Brings each count recovery found negative back to zero with a durable compensating insert, as if
     * the deletes that made it negative had been refused (as they are today): the table, and every view
     * over it (a count, a join), reads as the writes that were valid left it, from the compensation's
     * time on. Each stays listed in {@link #errors()} for this run with the compensation's time; a later
     * start finds nothing to repair. A compensation that cannot be written (a full disk) leaves the row
     * listed as found, and reads keep skipping it.
     */
    private List<StorageError> repair(List<NegativeCounts.Found> found) {
        List<StorageError> out = new ArrayList<>();
        for (NegativeCounts.Found f : found) {
            try {
                Long at = admission.write(f.table(), List.of(new RowDiff(f.row(), -f.multiplicity())), null).block(REPAIR_TIMEOUT);
                LOG.log(System.Logger.Level.WARNING, "table {0}: row {1} had multiplicity {2}; a compensating insert at time {3} brought it to zero",
                        f.table(), f.row(), Long.toString(f.multiplicity()), Long.toString(at));
                out.add(f.error(REPAIRED + at));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "table " + f.table() + ": the compensation of row " + f.row() + " failed; reads skip it", e);
                out.add(f.error(NegativeCounts.ERROR));
            }
        }
        return List.copyOf(out);
    }

    @Override
    public String unavailable() {
        return health.unavailable();
    }

    /** Log writes (and probes) that failed and were undone. */
    long writeFailures() {
        return health.writeFailures();
    }

    @Override
    public StorageStats stats() {
        return new StorageStats(commit.records(), commit.commits(), commit.syncs(), journal.size(), compaction.compactions(),
                subscriptions.emitFailures());
    }

    @Override
    public void close() {
        if (!admission.close()) {
            return;
        }
        ticker.dispose();
        compactionChecker.dispose();
        commit.join();
        subscriptions.close();
        journal.close();
    }

    /** The history a subscriber to {@code id} would be primed from now (for tests of what stays reachable). */
    TraceSnapshot history(String id) {
        synchronized (applied.lock) {
            return applied.table(id).history();
        }
    }

    private void tick() {
        commit.probeIfUnavailable();
        subscriptions.tick();
    }

    // ---- errors shared by the parts -------------------------------------------------------------

    static void requireId(String id) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException("an id must be a non-empty string");
        }
    }

    static WriteRefusal unknownTable(String id) {
        return new WriteRefusal(WriteRefusal.Reason.UNKNOWN_TABLE, "unknown table '" + id + "'");
    }

    static IllegalStateException closedError() {
        return new IllegalStateException("the storage is closed");
    }
}
