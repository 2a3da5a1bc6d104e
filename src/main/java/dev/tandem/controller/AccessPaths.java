package dev.tandem.controller;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one chooser of a read's {@link AccessPath}, for the REST API and SQL alike: from the collection read,
 * the key rows given or the values its filter pins, and the running indexes on the collection.
 *
 * <p>The rule: a query's plan is a transient dataflow. A read of an index is a lookup of the keys given
 * or pinned, else a scan of it. A read of a collection with key rows is a lookup in its running index with
 * a key of their arity; without them, a lookup in the running index with the most key columns the filter
 * pins ({@code col = literal}, or an OR of such on one column: each combination of the values is a key, at
 * most {@link AccessPath#MAX_LOOKUP_KEYS}), else a scan of a running index, else a transient dataflow of the
 * collection. Among indexes alike, a table's primary key index comes first, then the catalog's order.
 *
 * <p>Thread-safe and lock-free: it reads the catalog and the tracked indexes, which may change right after;
 * a read whose chosen index is no longer running when it runs is chosen again ({@link #current}).
 */
final class AccessPaths {

    private final Catalog catalog;
    private final Map<String, CatalogEntry.Index> system;
    private final IndexTracker indexes;

    AccessPaths(Catalog catalog, Map<String, CatalogEntry.Index> system, IndexTracker indexes) {
        this.catalog = catalog;
        this.system = system;
        this.indexes = indexes;
    }

    /** The path {@code req} reads through, chosen now. */
    AccessPath choose(ReadRequest req) {
        if (req.plan() != null) {
            if (req.keys() != null) {
                throw ControllerException.invalid("key: a key lookup needs 'from' naming an indexed collection");
            }
            return new AccessPath.Transient(req.plan(), req.mfp());
        }
        CatalogEntry e = system.containsKey(req.from()) ? system.get(req.from()) : catalog.require(req.from());
        if (req.keys() != null) {
            CatalogEntry.Index index = e instanceof CatalogEntry.Index i ? i : indexOn(e.name(), Reads.keyArity(req.keys()));
            if (index == null) {
                throw ControllerException.invalid("key: a key lookup needs an index; '" + req.from() + "' has none");
            }
            return new AccessPath.Lookup(index, req.keys(), req.mfp());
        }
        List<CatalogEntry.Index> candidates = e instanceof CatalogEntry.Index i ? List.of(i) : candidates(e.name());
        AccessPath.Lookup lookup = lookup(candidates, e.schema(), req.mfp());
        if (lookup != null) {
            return lookup;
        }
        if (!candidates.isEmpty()) {
            return new AccessPath.IndexScan(candidates.get(0), req.mfp());
        }
        return new AccessPath.Transient(Plan.getByName(e.name()), req.mfp());
    }

    /** Whether {@code path} can still run as chosen: the index it reads is running (the same index, not one made since under its name). */
    boolean current(AccessPath path) {
        return switch (path) {
            case AccessPath.Lookup l -> indexes.running(l.index().id());
            case AccessPath.IndexScan s -> indexes.running(s.index().id());
            case AccessPath.Transient t -> true;
        };
    }

    /**
     * A running index on {@code name} usable for key rows of {@code keyArity} columns (-1: any key), or
     * null; a table's primary key index first, so a key given for a table is its primary key.
     */
    CatalogEntry.Index indexOn(String name, int keyArity) {
        for (CatalogEntry.Index i : candidates(name)) {
            if (keyArity < 0 || i.key().size() == keyArity) {
                return i;
            }
        }
        return null;
    }

    /**
     * The running index on {@code name} a lookup goes through when the filter pins the columns {@code pinned}
     * to one value each: the one with the most key columns, all pinned; null when there is none.
     */
    CatalogEntry.Index lookupIndex(String name, Set<String> pinned) {
        CatalogEntry.Index best = null;
        for (CatalogEntry.Index i : candidates(name)) {
            if (pinned.containsAll(i.key()) && (best == null || i.key().size() > best.key().size())) {
                best = i;
            }
        }
        return best;
    }

    /** The running indexes on collection {@code name}: its primary key's first, then the others in the catalog's order. */
    private List<CatalogEntry.Index> candidates(String name) {
        List<CatalogEntry.Index> out = new ArrayList<>();
        catalog.get(name).filter(e -> e instanceof CatalogEntry.Table).flatMap(e -> ((CatalogEntry.Table) e).primaryKey())
                .flatMap(k -> catalog.get(k.name()))
                .filter(e -> e instanceof CatalogEntry.Index i && i.on().equals(name) && indexes.running(i.id()))
                .ifPresent(e -> out.add((CatalogEntry.Index) e));
        for (CatalogEntry e : catalog.all()) {
            if (e instanceof CatalogEntry.Index i && i.on().equals(name) && indexes.running(i.id()) && !out.contains(i)) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * The lookup of the index among {@code candidates} with the most key columns the filter of {@code mfp}
     * pins, all of them, in at most {@link AccessPath#MAX_LOOKUP_KEYS} combinations; null when none is pinned.
     * The conjuncts that pinned its key columns leave the filter where the lookup returns exactly the rows
     * they keep ({@link AccessPath#exactKey}); the others stay, and every row still passes them.
     */
    private static AccessPath.Lookup lookup(List<CatalogEntry.Index> candidates, Schema schema, Mfp mfp) {
        Map<Integer, Integer> pinning = new HashMap<>();
        Map<Integer, List<Object>> pinned = pinned(mfp.filter(), schema, pinning);
        CatalogEntry.Index best = null;
        List<List<Object>> bestChoices = null;
        for (CatalogEntry.Index i : candidates) {
            if (best != null && i.key().size() <= best.key().size()) {
                continue;
            }
            List<List<Object>> choices = new ArrayList<>();
            long combinations = 1;
            for (String col : i.key()) {
                List<Object> values = pinned.get(schema.indexOf(col));
                if (values == null || (combinations *= values.size()) > AccessPath.MAX_LOOKUP_KEYS) {
                    choices = null;
                    break;
                }
                choices.add(values);
            }
            if (choices != null) {
                best = i;
                bestChoices = choices;
            }
        }
        if (best == null) {
            return null;
        }
        Set<Integer> dropped = new HashSet<>();
        for (String col : best.key()) {
            int c = schema.indexOf(col);
            if (AccessPath.exactKey(schema.column(c).type())) {
                dropped.add(pinning.get(c));
            }
        }
        List<Expr> rest = new ArrayList<>();
        for (int i = 0; i < mfp.filter().size(); i++) {
            if (!dropped.contains(i)) {
                rest.add(mfp.filter().get(i));
            }
        }
        return new AccessPath.Lookup(best, product(bestChoices), new Mfp(mfp.map(), rest, mfp.project()));
    }

    /**
     * The values each column of {@code schema} is pinned to by the conjuncts: {@code col = literal} pins one,
     * an OR of such equalities on one column several; the first conjunct pinning a column wins (the others
     * stay in the filter). {@code pinning} receives the position of the conjunct that pinned each column.
     */
    static Map<Integer, List<Object>> pinned(List<Expr> conjuncts, Schema schema, Map<Integer, Integer> pinning) {
        Map<Integer, List<Object>> pinned = new LinkedHashMap<>();
        for (int i = 0; i < conjuncts.size(); i++) {
            Expr c = conjuncts.get(i);
            List<Expr> alternatives = c instanceof Expr.Call call && call.func() == Func.OR ? call.args() : List.of(c);
            Integer column = null;
            List<Object> values = new ArrayList<>();
            for (Expr alt : alternatives) {
                Expr.Lit lit = equalityLiteral(alt);
                int col = lit == null ? -1 : equalityColumn(alt);
                Object value = col < 0 || col >= schema.arity() || column != null && column != col ? null : datum(lit, schema.column(col));
                if (value == null) {
                    values = null;
                    break;
                }
                column = col;
                values.add(value);
            }
            if (values != null && column != null && !pinned.containsKey(column)) {
                pinned.put(column, distinct(values));
                pinning.put(column, i);
            }
        }
        return pinned;
    }

    /**
     * The literal of {@code e} when it is {@code column = non-NULL literal} (either way round), else null. A
     * numeric pins nothing: its key holds its scale, and {@code = 1.5} must find {@code 1.50} too.
     */
    private static Expr.Lit equalityLiteral(Expr e) {
        if (e instanceof Expr.Call call && call.func() == Func.EQ) {
            Expr a = call.args().get(0);
            Expr b = call.args().get(1);
            Expr.Lit lit = a instanceof Expr.Col && b instanceof Expr.Lit l ? l : b instanceof Expr.Col && a instanceof Expr.Lit l ? l : null;
            return lit == null || lit.value() == null || lit.value() instanceof java.math.BigDecimal ? null : lit;
        }
        return null;
    }

    private static int equalityColumn(Expr e) {
        Expr.Call call = (Expr.Call) e;
        return call.args().get(0) instanceof Expr.Col c ? c.index() : ((Expr.Col) call.args().get(1)).index();
    }

    /** {@code lit}'s value as a datum of {@code column}'s type, or null when it is none. */
    private static Object datum(Expr.Lit lit, Column column) {
        if (lit.type() == column.type()) {
            return lit.value();
        }
        try {
            return RowJson.row(RowJson.json(Row.of(lit.value())), new Schema(List.of(new Column(column.name(), column.type(), true)))).unpack()[0];
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The values without repeats, in their first order, by hashing (one look-up a value, so an IN list of
     * any length costs time in proportion to it): values equal as datums are one key ({@code -0.0} and
     * {@code 0.0} too).
     */
    static List<Object> distinct(List<Object> values) {
        Set<Object> seen = new HashSet<>(Math.max(16, values.size() * 2));
        List<Object> out = new ArrayList<>(values.size());
        for (Object v : values) {
            if (seen.add(v instanceof Double d && d == 0.0 ? (Object) 0.0 : v)) {
                out.add(v);
            }
        }
        return out;
    }

    /** Every combination of one value from each list, as key rows. */
    private static List<Row> product(List<List<Object>> choices) {
        List<List<Object>> out = new ArrayList<>();
        out.add(List.of());
        for (List<Object> values : choices) {
            List<List<Object>> next = new ArrayList<>();
            for (List<Object> prefix : out) {
                for (Object v : values) {
                    List<Object> k = new ArrayList<>(prefix);
                    k.add(v);
                    next.add(k);
                }
            }
            out = next;
        }
        List<Row> rows = new ArrayList<>(out.size());
        for (List<Object> k : out) {
            rows.add(Row.of(k.toArray()));
        }
        return rows;
    }
}
