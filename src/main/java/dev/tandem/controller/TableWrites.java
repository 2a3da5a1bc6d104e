package dev.tandem.controller;

import dev.tandem.storage.RowDiff;
import dev.tandem.storage.RowsGoneException;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.UniqueViolationException;
import dev.tandem.storage.WriteRefusal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * Users' writes to tables: which tables take them (not those a source feeds), their rows fitted to the
 * tables' declared types and checks, and storage's refusals worded with the tables' names.
 */
final class TableWrites {

    private final Catalog catalog;
    private final TableStorage storage;
    /** Tables that only their feeder writes to (sources), by name, with why users may not write or drop them. */
    private final Map<String, String> fedTables = new ConcurrentHashMap<>();

    TableWrites(Catalog catalog, TableStorage storage) {
        this.catalog = catalog;
        this.storage = storage;
    }

    /** Marks table {@code name} as fed by a source ({@code reason} why users may not write or drop it); null lifts the mark. */
    void feed(String name, String reason) {
        if (reason == null) {
            fedTables.remove(name);
        } else {
            fedTables.put(name, reason);
        }
    }

    /** Why users may not write to or drop table {@code name} (a source feeds it), or null. */
    String fedReason(String name) {
        return fedTables.get(name);
    }

    /**
     * Table {@code table}, if users may write to it: not found (404), not a table (422) and fed by a
     * source (409) are refused.
     */
    CatalogEntry.Table writableTable(String table) {
        CatalogEntry e = catalog.require(table);
        if (!(e instanceof CatalogEntry.Table t)) {
            throw ControllerException.invalid("'" + table + "' is a " + e.getClass().getSimpleName().toLowerCase() + "; only tables accept writes");
        }
        String fed = fedTables.get(table);
        if (fed != null) {
            throw new ControllerException(ControllerException.Reason.FED_BY_SOURCE, fed);
        }
        return t;
    }

    /** Writes rows (of the table's schema) to table {@code table} as it is now; completes with the write's timestamp once durable. */
    Mono<Long> write(String table, List<RowDiff> diffs) {
        CatalogEntry.Table t = writableTable(table);
        requireRows(diffs);
        return storage.write(t.id(), WrittenRows.fitted(t, diffs)).onErrorMap(TableWrites::refusedByStorage, x -> named(x, Map.of(t.id(), t.name()), false));
    }

    /** Writes rows to {@code table} as it was when they were made; refused (409) if it was dropped since. */
    Mono<Long> write(CatalogEntry.Table table, List<RowDiff> diffs) {
        CatalogEntry.Table now = stillWritable(table);
        requireRows(diffs);
        return storage.write(now.id(), WrittenRows.fitted(now, diffs)).onErrorMap(TableWrites::refusedByStorage, x -> named(x, Map.of(now.id(), now.name()), true));
    }

    /** Writes rows to several tables, each as it was when its rows were made, at one timestamp in one durable log record. */
    Mono<Long> writeTables(Map<CatalogEntry.Table, List<RowDiff>> changes) {
        Map<String, List<RowDiff>> byId = new LinkedHashMap<>();
        Map<String, String> names = new LinkedHashMap<>();
        for (Map.Entry<CatalogEntry.Table, List<RowDiff>> c : changes.entrySet()) {
            CatalogEntry.Table now = stillWritable(c.getKey());
            requireRows(c.getValue());
            byId.put(now.id(), WrittenRows.fitted(now, c.getValue()));
            names.put(now.id(), now.name());
        }
        return storage.writeTables(byId, null).onErrorMap(TableWrites::refusedByStorage, x -> named(x, names, true));
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
}
