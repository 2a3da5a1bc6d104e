package dev.tandem.storage;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a write or a table's keys must satisfy on their own, before {@link WriteAdmission} checks them
 * against the rows there: rows that fit the table's schema, well-formed keys, and what a write deletes
 * and the key values it adds, net.
 */
final class WriteChecks {

    private WriteChecks() {
    }

    /** Refuses keys that do not fit {@code schema}: unknown columns, a nullable primary key column, two primary keys, two keys of one name. */
    static void checkKeys(Schema schema, List<UniqueKey> keys) {
        Objects.requireNonNull(keys, "keys");
        Set<String> names = new HashSet<>();
        boolean primary = false;
        for (UniqueKey k : keys) {
            if (!names.add(k.name())) {
                throw new WriteRefusal(WriteRefusal.Reason.INVALID_KEYS, "two keys are named '" + k.name() + "'");
            }
            if (k.primary()) {
                if (primary) {
                    throw new WriteRefusal(WriteRefusal.Reason.INVALID_KEYS, "a table has at most one primary key");
                }
                primary = true;
            }
            for (int c : k.columns()) {
                if (c >= schema.arity()) {
                    throw new WriteRefusal(WriteRefusal.Reason.INVALID_KEYS, "key '" + k.name() + "': the table has no column " + c);
                }
                if (k.primary() && schema.column(c).nullable()) {
                    throw new WriteRefusal(WriteRefusal.Reason.INVALID_KEYS, "key '" + k.name() + "': primary key column '" + schema.column(c).name() + "' must be NOT NULL");
                }
            }
        }
    }

    /** The rows {@code updates} delete more of than they insert, with how many; null if none. */
    static Map<Row, Long> netDeletes(List<RowDiff> updates) {
        Map<Row, Long> net = null;
        for (RowDiff u : updates) {
            if (u.diff() < 0) {
                if (net == null) {
                    net = new HashMap<>();
                }
                net.put(u.row(), 0L);
            }
        }
        if (net == null) {
            return null;
        }
        for (RowDiff u : updates) {
            net.computeIfPresent(u.row(), (r, d) -> d - u.diff());
        }
        net.values().removeIf(n -> n <= 0);
        return net.isEmpty() ? null : net;
    }

    /**
     * Per key of the table, the key values {@code updates} add rows with (net: inserts less deletes of
     * rows with that value), with how many; values with a NULL are left out (never duplicates). Null
     * if the write adds none.
     */
    static List<Map<Row, Long>> keyInserts(List<UniqueKey> keys, List<RowDiff> updates) {
        List<Map<Row, Long>> out = new ArrayList<>(keys.size());
        boolean any = false;
        for (UniqueKey k : keys) {
            int[] cols = k.positions();
            Map<Row, Long> net = new HashMap<>();
            for (RowDiff u : updates) {
                Row key = u.row().project(cols);
                if (!key.hasNull()) {
                    net.merge(key, u.diff(), Long::sum);
                }
            }
            net.values().removeIf(n -> n <= 0);
            any |= !net.isEmpty();
            out.add(net);
        }
        return any ? out : null;
    }

    /** The refusal of {@code updates} to table {@code id} when they do not fit {@code schema}, naming the row and column; null if they fit. */
    static WriteRefusal violation(String id, Schema schema, List<RowDiff> updates) {
        String rejected = "write to table '" + id + "' rejected: ";
        for (int i = 0; i < updates.size(); i++) {
            RowDiff u = updates.get(i);
            if (u == null) {
                return new WriteRefusal(WriteRefusal.Reason.SCHEMA_MISMATCH, rejected + "row " + i + " is null");
            }
            if (u.diff() == 0) {
                return new WriteRefusal(WriteRefusal.Reason.SCHEMA_MISMATCH, rejected + "row " + i + " has diff 0");
            }
            Row row = u.row();
            int arity;
            try {
                arity = row.arity();
            } catch (RuntimeException e) {
                return new WriteRefusal(WriteRefusal.Reason.SCHEMA_MISMATCH, rejected + "row " + i + " has a corrupt encoding");
            }
            if (arity != schema.arity()) {
                return new WriteRefusal(WriteRefusal.Reason.SCHEMA_MISMATCH, rejected + "row " + i + " has " + arity + " columns, the table has " + schema.arity());
            }
            for (int c = 0; c < arity; c++) {
                Column column = schema.column(c);
                DatumType type = row.typeAt(c);
                if (type != column.type()) {
                    return new WriteRefusal(WriteRefusal.Reason.SCHEMA_MISMATCH, rejected + "row " + i + ", column '" + column.name() + "' (#" + c + "): expected "
                            + column.type().jsonName() + ", got " + type.jsonName());
                }
                if (!column.nullable() && row.get(c) == null) {
                    return new WriteRefusal(WriteRefusal.Reason.NOT_NULLABLE, rejected + "row " + i + ", column '" + column.name() + "' (#" + c
                            + ") is not nullable but is NULL");
                }
            }
        }
        return null;
    }
}
