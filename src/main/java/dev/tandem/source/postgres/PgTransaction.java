package dev.tandem.source.postgres;

import dev.tandem.row.Row;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One upstream transaction being received: the net change per table, its rows by key so far (so an UPDATE
 * or DELETE that sends only the key finds the row this transaction left, or the applied one), and the
 * tables it put in error. {@link PgSourceIngester} adds it to its batch at the commit.
 */
final class PgTransaction {

    private static final Row NONE = Row.of();
    /** Applied before a restart: its changes are skipped. */
    final boolean skip;
    final Map<PgTableState, Map<Row, Long>> net = new LinkedHashMap<>();
    private final Map<PgTableState, Map<Row, Row>> byKey = new HashMap<>();
    final Map<String, String> errors = new LinkedHashMap<>();

    PgTransaction(boolean skip) {
        this.skip = skip;
    }

    /** Adds an inserted row. */
    void insert(PgTableState t, PgOutput.Insert ins) {
        add(t, t.row(ins.row(), null), 1);
    }

    /** Adds an update: the old row (the sent one, or the one held by key) retracted, the new one inserted. */
    void update(PgTableState t, PgOutput.Update up) {
        Row old;
        if (up.old() == null || up.oldIsKeyOnly()) {
            Object[] keyValues = up.old() != null ? up.old() : up.row();
            old = current(t, t.keyOfKeyTuple(keyValues));
        } else {
            Row previous = t.keyed() ? current(t, t.keyOfKeyTuple(up.old())) : null;
            old = t.row(up.old(), previous);
        }
        if (old == null) {
            throw new IllegalStateException("an UPDATE of a row Tandem does not hold");
        }
        Row row = t.row(up.row(), old);
        add(t, old, -1);
        add(t, row, 1);
    }

    /** Adds a delete: the old row (the sent one, or the one held by key) retracted. */
    void delete(PgTableState t, PgOutput.Delete del) {
        Row old;
        if (del.oldIsKeyOnly()) {
            old = current(t, t.keyOfKeyTuple(del.old()));
        } else {
            Row previous = t.keyed() ? current(t, t.keyOfKeyTuple(del.old())) : null;
            old = t.row(del.old(), previous);
        }
        if (old == null) {
            throw new IllegalStateException("a DELETE of a row Tandem does not hold");
        }
        add(t, old, -1);
    }

    /** Adds a truncate: every row of the table, as applied and as this transaction left it so far, retracted. */
    void truncate(PgTableState t) {
        Map<Row, Long> rows = t.rows();
        net.getOrDefault(t, Map.of()).forEach((row, n) -> rows.merge(row, n, Long::sum));
        rows.forEach((row, n) -> {
            if (n != 0) {
                add(t, row, -n);
            }
        });
    }

    void add(PgTableState t, Row row, long diff) {
        net.computeIfAbsent(t, k -> new LinkedHashMap<>()).merge(row, diff, Long::sum);
        if (t.keyed()) {
            Map<Row, Row> mine = byKey.computeIfAbsent(t, k -> new HashMap<>());
            Row key = t.keyOf(row);
            if (diff > 0) {
                mine.put(key, row);
            } else if (row.equals(current(t, key))) {
                mine.put(key, NONE);
            }
        }
    }

    /** The row with {@code key} as this transaction leaves it so far: its own changes over the applied rows. */
    Row current(PgTableState t, Row key) {
        Map<Row, Row> mine = byKey.get(t);
        Row r = mine == null ? null : mine.get(key);
        if (r != null) {
            return r == NONE ? null : r;
        }
        return t.committed(key);
    }

    /** Drops what this transaction changed in {@code t} (the table went into error). */
    void forget(PgTableState t) {
        net.remove(t);
        byKey.remove(t);
    }
}
