package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.plan.Plan;
import dev.tandem.row.Row;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.RowsGoneException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The writes of an open transaction block ({@code BEGIN ... COMMIT}), held in memory until {@code COMMIT}
 * makes them one storage write: at one timestamp, atomically and durably — one log record, however many
 * tables the block wrote — admitted only if every row the block deletes (an {@code UPDATE}'s or
 * {@code DELETE}'s old rows) is still there and no unique key would be held twice, checked against the
 * committed state as the write takes its place in the log. A row the block read and another write deleted
 * since is a serialization failure ({@code 40001}); nothing of the block is kept then, nor after
 * {@code ROLLBACK}.
 *
 * <p>Reads inside the block see its writes: a plan reading a table the block wrote reads the table plus
 * the block's net inserts less its net deletes (a union with constants); a view or index over such a
 * table cannot be rewritten so and its read is refused ({@code 0A000}), as is a read {@code AS OF} a
 * past time.
 *
 * <p>Confined to its session's connection.
 */
final class TransactionBlock {

    /** PostgreSQL's serialization_failure: the block read rows another write changed since. */
    static final SqlState SERIALIZATION_FAILURE = SqlState.SERIALIZATION_FAILURE;

    /** The most distinct rows a block's writes may change before COMMIT (each held in memory until then). */
    static final int MAX_ROWS = 1_000_000;

    /** One table the block wrote: the table as it was then, and the block's net change per row (no zero counts), in first-written order. */
    private record Written(CatalogEntry.Table table, Map<Row, Long> net) {
    }

    /** The tables the block wrote, by table id, in first-written order. */
    private final Map<String, Written> written = new LinkedHashMap<>();
    /** Distinct rows changed over every table. */
    private int rows;

    /** Whether the block wrote anything (its net change may still be nothing). */
    boolean wrote() {
        return !written.isEmpty();
    }

    /**
     * Adds a statement's writes to the block; refused ({@code 54000}) past {@link #MAX_ROWS}, and then the
     * block is as before.
     */
    void add(CatalogEntry.Table to, List<RowDiff> given, Controller controller) {
        controller.writableTable(to.name());
        // fitted to the declared types and checked now, at the statement, as PostgreSQL does (and again at COMMIT)
        List<RowDiff> diffs = Controller.fitted(to, given);
        Written w = written.get(to.id());
        Map<Row, Long> net = w == null ? Map.of() : w.net();
        Map<Row, Long> after = new LinkedHashMap<>();
        for (RowDiff d : diffs) {
            after.merge(d.row(), d.diff(), Long::sum);
        }
        long grown = after.keySet().stream().filter(r -> !net.containsKey(r)).count();
        if (rows + grown > MAX_ROWS) {
            throw new SqlException(SqlException.PROGRAM_LIMIT, "a transaction block may change at most " + MAX_ROWS
                    + " distinct rows before COMMIT; commit in smaller blocks");
        }
        if (w == null) {
            w = new Written(to, new LinkedHashMap<>());
            written.put(to.id(), w);
        }
        Map<Row, Long> into = w.net();
        after.forEach((row, n) -> into.merge(row, n, (a, b) -> a + b == 0 ? null : a + b));
        rows = written.values().stream().mapToInt(x -> x.net().size()).sum();
    }

    /**
     * {@code plan} reading the tables this block wrote as they are with the block's writes: each {@code get}
     * of one becomes the table plus the net inserts less the net deletes. Refused when the plan reads a view
     * or index over such a table, or {@code asOf} a given time. The plan itself when the block wrote nothing
     * it reads.
     */
    Plan overlay(Plan plan, Controller controller, Long asOf) {
        if (written.isEmpty()) {
            return plan;
        }
        List<String> read = plan.namesRead();
        Map<String, Written> byName = new LinkedHashMap<>();
        for (Written w : written.values()) {
            String table = w.table().name();
            Set<String> over = dependents(controller, table);
            for (String name : read) {
                if (over.contains(name)) {
                    throw SqlException.notSupported("reading \"" + name + "\", which reads the table \"" + table
                            + "\" this transaction block wrote, inside the block (read the table itself, or after COMMIT)");
                }
            }
            if (read.contains(table)) {
                byName.put(table, w);
            }
        }
        if (byName.isEmpty()) {
            return plan;
        }
        if (asOf != null) {
            throw SqlException.notSupported("AS OF inside a transaction block that wrote \"" + byName.keySet().iterator().next() + "\"");
        }
        Map<String, List<Plan>> overlaid = new LinkedHashMap<>();
        byName.forEach((name, w) -> {
            List<Row> inserted = new ArrayList<>();
            List<Row> deleted = new ArrayList<>();
            w.net().forEach((row, n) -> {
                List<Row> into = n > 0 ? inserted : deleted;
                for (long i = 0; i < Math.abs(n); i++) {
                    into.add(row);
                }
            });
            var types = w.table().schema().types();
            overlaid.put(name, List.of(new Plan.Constant(inserted, types), new Plan.Negate(new Plan.Constant(deleted, types))));
        });
        return plan.substitute((get, path) -> {
            List<Plan> extra = overlaid.get(get.name());
            if (extra == null) {
                return get;
            }
            List<Plan> parts = new ArrayList<>(List.of(get));
            parts.addAll(extra);
            return new Plan.Union(parts);
        }, "plan");
    }

    /** The views and indexes reading {@code name}, directly or through others. */
    private static Set<String> dependents(Controller controller, String name) {
        Set<String> seen = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>(List.of(name));
        while (!todo.isEmpty()) {
            for (String d : controller.dependents(todo.pop())) {
                if (seen.add(d)) {
                    todo.push(d);
                }
            }
        }
        return seen;
    }

    /**
     * Commits the block's writes as one durable write (one log record, whatever the number of tables),
     * completing with its timestamp, or empty when they change nothing. A row deleted since the block read
     * it, or a table dropped since, fails with {@code 40001}; a key held twice with {@code 23505}.
     */
    Mono<Long> commit(Controller controller) {
        Map<CatalogEntry.Table, List<RowDiff>> changes = new LinkedHashMap<>();
        for (Written w : written.values()) {
            if (w.net().isEmpty()) {
                continue;
            }
            boolean same = controller.catalog().stream().anyMatch(e -> e instanceof CatalogEntry.Table t && t.id().equals(w.table().id()));
            if (!same) {
                return Mono.error(conflict("table \"" + w.table().name() + "\" was dropped since the block wrote it"));
            }
            List<RowDiff> diffs = new ArrayList<>(w.net().size());
            w.net().forEach((row, n) -> diffs.add(new RowDiff(row, n)));
            changes.put(w.table(), diffs);
        }
        if (changes.isEmpty()) {
            return Mono.empty();
        }
        Mono<Long> write = changes.size() == 1
                ? Mono.defer(() -> controller.write(changes.keySet().iterator().next(), changes.values().iterator().next()))
                : Mono.defer(() -> controller.writeTables(changes));
        return write.onErrorMap(RowsGoneException.class, e -> conflict(e.getMessage()));
    }

    private static SqlException conflict(String why) {
        return new SqlException(SERIALIZATION_FAILURE, "could not serialize access due to concurrent update (" + why + ")");
    }
}
