package dev.tandem.controller;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How a read gets its rows, as the controller's one chooser ({@link Controller#accessPath}) picks it: a
 * lookup of key rows in an index, a scan of an index, or a transient dataflow of a plan, each with the
 * map, filter and projection it applies to what it reads.
 */
public sealed interface AccessPath {

    /**
     * The most keys a lookup chosen from a filter takes (an IN list, or IN lists on several key columns,
     * multiply); past it the index is scanned with the filter.
     */
    int MAX_LOOKUP_KEYS = 200_000;

    /** The map, filter and projection applied to the rows read. */
    Mfp mfp();

    /** A lookup of {@code keys} (rows of the index's key columns, in key order) in {@code index}. */
    record Lookup(CatalogEntry.Index index, List<Row> keys, Mfp mfp) implements AccessPath {
        public Lookup {
            Objects.requireNonNull(index, "index");
            keys = List.copyOf(keys);
            Objects.requireNonNull(mfp, "mfp");
        }
    }

    /** A scan of every row of {@code index}. */
    record IndexScan(CatalogEntry.Index index, Mfp mfp) implements AccessPath {
        public IndexScan {
            Objects.requireNonNull(index, "index");
            Objects.requireNonNull(mfp, "mfp");
        }
    }

    /** A transient dataflow computing {@code plan} (by names), built for the read alone and dropped after it. */
    record Transient(Plan plan, Mfp mfp) implements AccessPath {
        public Transient {
            Objects.requireNonNull(plan, "plan");
            Objects.requireNonNull(mfp, "mfp");
        }
    }

    /**
     * Whether equality of {@code t} in SQL is equality of its datums, so that a lookup returns exactly the
     * rows an equality with the key would keep (floats, whose {@code NaN} and {@code -0} compare in ways of
     * their own, and numerics, whose datums hold a scale, are not).
     */
    static boolean exactKey(DatumType t) {
        return t == DatumType.INT64 || t == DatumType.STRING || t == DatumType.BOOL || t == DatumType.TIMESTAMP
                || t == DatumType.DATE || t == DatumType.TIMESTAMPTZ || t == DatumType.UUID || t == DatumType.BYTEA
                || t == DatumType.TIME;
    }

    /**
     * The values without repeats, in their first order, as a lookup takes the values pinning a column: values
     * equal as datums are one key ({@code -0.0} and {@code 0.0} too).
     */
    static List<Object> distinctKeys(List<Object> values) {
        return AccessPaths.distinct(values);
    }

    /**
     * The columns of {@code schema} the conjuncts {@code filter} pin as the chooser reads them: by
     * {@code col = literal}, or an OR of such on one column.
     */
    static Set<Integer> pinnedColumns(List<Expr> filter, Schema schema) {
        return AccessPaths.pinned(filter, schema, new HashMap<>()).keySet();
    }
}
