package dev.tandem.storage;

import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tandem's input tables: schemas, timestamped durable writes, frontiers and subscriptions, plus the
 * durable catalog of definitions.
 *
 * <p>All tables share one timeline: a single timestamp oracle stamps every write and one upper advances
 * past each write and on a periodic tick. Readers see tables only through {@link #subscribe}, whose
 * events ({@link TableEvent}) say nothing about how updates are stored, so another log (such as Kafka
 * topics) can stand behind the same interface.
 *
 * <p>Methods returning {@code void} that change state ({@link #createTable}, {@link #dropTable}, {@link #addKey}, {@link #dropKey},
 * {@link #putCatalogEntry}, {@link #removeCatalogEntry}, {@link #changeCatalog}, {@link #compact}) block until the change is
 * durable; they must not be called from a subscription's or a write's completion callback, which run on
 * the storage's commit thread. Subscribers should hand heavy work off to their own scheduler.
 */
public interface TableStorage extends AutoCloseable {

    /** Creates a table without keys; throws {@link IllegalArgumentException} if {@code id} already exists. */
    default void createTable(String id, Schema schema) {
        createTable(id, schema, List.of());
    }

    /**
     * Creates a table whose writes are refused ({@link UniqueViolationException}) when they would leave
     * two rows with the same value of one of {@code keys}; throws {@link IllegalArgumentException} if
     * {@code id} already exists or a key does not fit the schema (an unknown column, a nullable
     * primary key column, two primary keys).
     */
    void createTable(String id, Schema schema, List<UniqueKey> keys);

    /**
     * The unique keys of a table (empty: none): those it was created with (the first, if any, is the one it
     * is arranged by), then those added since; throws {@link IllegalArgumentException} if it does not exist.
     */
    List<UniqueKey> keys(String id);

    /**
     * Adds unique key {@code key} (not a primary key) to an existing table, with the catalog changes of
     * {@code swap} (null: none) in the same log record: from then on every write is checked against it as
     * against the keys the table was created with. Refused, with nothing changed, by a
     * {@link UniqueViolationException} (its message PostgreSQL's {@code could not create unique index}) if
     * the table's rows, as every write admitted before it leaves them, share a non-NULL value of the key;
     * by a {@link WriteRefusal} if the table does not exist, the key does not fit it (an unknown column, a
     * name another of its keys has) or the swap's guard moved.
     */
    void addKey(String id, UniqueKey key, CatalogSwap swap);

    /**
     * Drops the key named {@code name} of table {@code id}, one {@link #addKey added} after the table was
     * created, with the catalog changes of {@code swap} (null: none) in the same log record; refused by a
     * {@link WriteRefusal} if there is no such key or the swap's guard moved.
     */
    void dropKey(String id, String name, CatalogSwap swap);

    /**
     * Drops a table; its subscriptions receive {@code Progress(Frontier.EMPTY)} and complete. Throws
     * {@link IllegalArgumentException} if the table does not exist.
     */
    void dropTable(String id);

    /** The schema of a table; throws {@link IllegalArgumentException} if it does not exist. */
    Schema schema(String id);

    /** The ids of the existing tables, sorted. */
    List<String> tables();

    /**
     * Writes {@code updates} to a table at one new timestamp, and completes with that timestamp once the
     * write is durable. The write is submitted when this method is called (not on subscription); the
     * Mono only reports its outcome. A write that fails validation (unknown table, wrong arity, a datum
     * of the wrong type, NULL in a non-nullable column, diff 0) errors with a {@link WriteRefusal} (an
     * {@link IllegalArgumentException}) of that reason naming the row and column, and nothing is written; so does a
     * write that would leave two rows with one value of a unique key, with a {@link UniqueViolationException}. An empty list
     * is a write of nothing that still gets a timestamp. Completion runs on the commit thread.
     */
    Mono<Long> write(String id, List<RowDiff> updates);

    /**
     * Like {@link #write(String, List)}, and makes the catalog changes of {@code swap} in the same log
     * record, so both are durable together or not at all; the write is refused whole (a {@link WriteRefusal}
     * of reason {@link WriteRefusal.Reason#GUARD_MOVED}) if the swap's guard entry does not hold its expected value.
     */
    Mono<Long> write(String id, List<RowDiff> updates, CatalogSwap swap);

    /**
     * Writes {@code updates} (by table id) to several tables at one new timestamp, in one log record with
     * the catalog changes of {@code swap} (null: none): a reader sees all of it at that timestamp or none
     * of it, and it is durable whole or not at all. Each table's rows are checked as {@link #write} checks
     * them; one failing check refuses the whole write. Completes with the timestamp once durable.
     */
    Mono<Long> writeTables(Map<String, List<RowDiff>> updates, CatalogSwap swap);

    /**
     * {@link #writeTables} of rows whose unique keys their producer guarantees, for a writer that alone
     * writes the tables: a PostgreSQL source's copy of one upstream snapshot, whose keys are the upstream
     * table's own primary key. Their key values are not checked against the tables (everything else is);
     * a storage that cannot skip the check checks them.
     */
    default Mono<Long> writeTablesKeysGuaranteed(Map<String, List<RowDiff>> updates, CatalogSwap swap) {
        return writeTables(updates, swap);
    }

    /**
     * The table's updates as of {@code asOf}: once the upper passes {@code asOf}, one {@code Updates}
     * with the consolidated snapshot at {@code asOf} (times advanced to {@code asOf}), then every update
     * with a later time, in timestamp order, each batch followed by {@code Progress}. Idle ticks emit
     * {@code Progress}. Fails if {@code asOf} is before the table's compaction frontier; completes after
     * {@code Progress(Frontier.EMPTY)} when the table is dropped, and when the storage closes.
     */
    Flux<TableEvent> subscribe(String id, long asOf);

    /** The table's write frontier: every update with a time below it is known. */
    Frontier upper(String id);

    /** The table's compaction frontier: reads at times at or beyond it are correct. */
    Frontier since(String id);

    /**
     * The updates the table holds now (a measure of its size): consolidated as far as its compaction and
     * the merges done so far allow, so updates in batches not yet merged count separately.
     */
    long records(String id);

    /**
     * The rows of table {@code id} whose first unique key (the one the table is arranged by) is {@code key},
     * with their multiplicities, as every write completed so far left them: a lookup of the table's own
     * arrangement, no copy. Throws {@link IllegalArgumentException} if the table does not exist or has no
     * unique key.
     */
    java.util.Map<dev.tandem.row.Row, Long> rowsWithKey(String id, dev.tandem.row.Row key);

    /**
     * Allows the table to forget history before {@code since}; the frontier only moves forward (an
     * earlier frontier is ignored). The empty frontier is rejected: use {@link #dropTable}.
     */
    void allowCompaction(String id, Frontier since);

    /** The timestamp of the latest acknowledged write, or -1 if there was none. */
    long lastWriteTime();

    /** Stores (or replaces) a catalog entry, durably. */
    void putCatalogEntry(String key, String json);

    /** Removes a catalog entry, durably; removing an absent key does nothing. */
    void removeCatalogEntry(String key);

    /**
     * Makes the catalog changes of {@code swap} together, durably, if its guard entry holds its expected
     * value where the change takes its place in the log; else throws a {@link WriteRefusal} of reason
     * {@link WriteRefusal.Reason#GUARD_MOVED} and changes nothing. Replicas over a shared log define tables, views and indexes this way, so of two
     * racing definitions the log's order decides which one holds, alike on every replica.
     */
    void changeCatalog(CatalogSwap swap);

    /**
     * Calls {@code changed} after this storage applied a change of tables or catalog entries from a shared
     * log that other replicas write to as well (whichever replica made it; not during start-up catch-up),
     * so that a controller can learn the definitions made elsewhere. It runs on the storage's own thread
     * and must only hand the work off. A storage no other process writes to never calls it.
     */
    default void watchDefinitions(Runnable changed) {
    }

    /** The catalog entries, sorted by key. */
    Map<String, String> catalogEntries();

    /** Consolidates stored history at every table's compaction frontier and rewrites the log to match. */
    void compact();

    /** Counters of the commit path. */
    StorageStats stats();

    /**
     * Why changes cannot be made durable right now (the last log write failed, e.g. the disk is full),
     * or null while they can. The storage retries on its own and clears this once a write succeeds.
     */
    default String unavailable() {
        return null;
    }

    /**
     * What start-up found wrong in the stored data and reads work around: rows whose count in the log
     * is negative (written before deletes were checked), which reads skip. Shown to users as the
     * introspection collection {@code tandem_storage_errors}.
     */
    default List<StorageError> errors() {
        return List.of();
    }

    /** Stops ticking, finishes pending writes, completes subscriptions and releases the log. */
    @Override
    void close();
}
