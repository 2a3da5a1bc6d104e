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
 * makes them one storage write: at one timestamp, atomically and durably, admitted only if every row the
 * block deletes (an {@code UPDATE}'s or {@code DELETE}'s old rows) is still there and no unique key would
 * be held twice, checked against the committed state as the write takes its place in the log. A row the
 * block read and another write deleted since is a serialization failure ({@code 40001}); nothing of the
 * block is kept then, nor after {@code ROLLBACK}.
 *
 * <p>Reads inside the block see its writes: a plan reading a table the block wrote reads the table plus
 * the block's net inserts less its net deletes (a union with constants); a view or index over such a
 * table cannot be rewritten so and its read is refused ({@code 0A000}), as is a read {@code AS OF} a
 * past time. A block writes one table: storage commits one table's rows per log record, so a write to
 * a second table in one block is refused ({@code 0A000}) rather than committed in two steps.
 *
 * <p>Confined to its session's connection.
 */
final class TransactionBlock {

    /** PostgreSQL's serialization_failure: the block read rows another write changed since. */
    static final String SERIALIZATION_FAILURE = "40001";

    /** The most distinct rows a block's writes may change before COMMIT (each held in memory until then). */
    static final int MAX_ROWS = 1_000_000;

    /** The one table the block wrote (null: none yet). */
    private CatalogEntry.Table table;
    /** The block's net change per row of {@link #table} (no zero counts), in first-written order. */
    private final Map<Row, Long> net = new LinkedHashMap<>();

    /** Whether the block wrote anything (its net change may still be nothing). */
    boolean wrote() {
        return table != null;
    }

    /**
     * Adds a statement's writes to the block; refused ({@code 0A000}) when the block wrote another table,
     * ({@code 54000}) past {@link #MAX_ROWS}. Either way the block is as before.
     */
    void add(CatalogEntry.Table to, List<RowDiff> diffs, Controller controller) {
        controller.writableTable(to.name());
        if (table != null && !table.id().equals(to.id())) {
            throw SqlException.notSupported("writing to a second table (\"" + to.name() + "\") in a transaction block that wrote \""
                    + table.name() + "\": a block commits one table's rows atomically; commit each table's writes in a block of its own");
        }
        Map<Row, Long> after = new LinkedHashMap<>();
        for (RowDiff d : diffs) {
            after.merge(d.row(), d.diff(), Long::sum);
        }
        long grown = after.keySet().stream().filter(r -> !net.containsKey(r)).count();
        if (net.size() + grown > MAX_ROWS) {
            throw new SqlException(SqlException.PROGRAM_LIMIT, "a transaction block may change at most " + MAX_ROWS
                    + " distinct rows before COMMIT; commit in smaller blocks");
        }
        table = to;
        after.forEach((row, n) -> net.merge(row, n, (a, b) -> a + b == 0 ? null : a + b));
    }

    /**
     * {@code plan} reading the table this block wrote as it is with the block's writes: each {@code get} of
     * it becomes the table plus the net inserts less the net deletes. Refused when the plan reads a view or
     * index over the table, or {@code asOf} a given time. The plan itself when the block wrote nothing it reads.
     */
    Plan overlay(Plan plan, Controller controller, Long asOf) {
        if (table == null) {
            return plan;
        }
        List<String> read = plan.namesRead();
        Set<String> over = dependents(controller, table.name());
        for (String name : read) {
            if (over.contains(name)) {
                throw SqlException.notSupported("reading \"" + name + "\", which reads the table \"" + table.name()
                        + "\" this transaction block wrote, inside the block (read the table itself, or after COMMIT)");
            }
        }
        if (!read.contains(table.name())) {
            return plan;
        }
        if (asOf != null) {
            throw SqlException.notSupported("AS OF inside a transaction block that wrote \"" + table.name() + "\"");
        }
        List<Row> inserted = new ArrayList<>();
        List<Row> deleted = new ArrayList<>();
        net.forEach((row, n) -> {
            List<Row> into = n > 0 ? inserted : deleted;
            for (long i = 0; i < Math.abs(n); i++) {
                into.add(row);
            }
        });
        String name = table.name();
        var types = table.schema().types();
        return plan.substitute((get, path) -> name.equals(get.name())
                ? new Plan.Union(List.of(get, new Plan.Constant(inserted, types), new Plan.Negate(new Plan.Constant(deleted, types))))
                : get, "plan");
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
     * Commits the block's writes as one durable write, completing with its timestamp, or empty when they
     * change nothing. A row deleted since the block read it, or its table dropped since, fails with
     * {@code 40001}; a key held twice with {@code 23505}.
     */
    Mono<Long> commit(Controller controller) {
        if (table == null || net.isEmpty()) {
            return Mono.empty();
        }
        boolean same = controller.catalog().stream().anyMatch(e -> e instanceof CatalogEntry.Table t && t.id().equals(table.id()));
        if (!same) {
            return Mono.error(conflict("table \"" + table.name() + "\" was dropped since the block wrote it"));
        }
        List<RowDiff> diffs = new ArrayList<>(net.size());
        net.forEach((row, n) -> diffs.add(new RowDiff(row, n)));
        return Mono.defer(() -> controller.write(table, diffs)).onErrorMap(RowsGoneException.class, e -> conflict(e.getMessage()));
    }

    private static SqlException conflict(String why) {
        return new SqlException(SERIALIZATION_FAILURE, "could not serialize access due to concurrent update (" + why + ")");
    }
}
