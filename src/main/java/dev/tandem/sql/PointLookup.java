package dev.tandem.sql;

import dev.tandem.controller.AccessPath;
import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ReadRequest;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;

/**
 * A query that is a lookup of one key of an index, its every key column pinned by a parameter
 * ({@code SELECT ... FROM t WHERE id = $1 [AND ...]}, or a literal query of that shape, whose literals
 * became parameters): the index, the parameters that make the key and the rest of the query (map,
 * filter, projection) are found once, when the statement is planned, so that running it only packs the
 * parameters into a key row. The index is the one the controller's chooser takes for the columns the
 * filter pins ({@link Controller#lookupIndex}); when the chooser would take an index whose key the
 * parameters alone do not make, the query is no such lookup. Any other query, or a run with a NULL key
 * value, is read as {@link SqlEngine#read} reads it, through the same chooser.
 *
 * <p>The conjuncts that pin the key are left out of the filter: the lookup returns exactly the rows whose
 * key equals the parameters, as datums, which is SQL's equality for the key types taken here (floats,
 * whose {@code NaN} and {@code -0} compare in ways of their own, are not).
 */
final class PointLookup {

    private final String collection;
    private final CatalogEntry.Index index;
    /** Per key column of the index, in its order: the position of the parameter that gives its value. */
    private final int[] keyParams;
    private final Mfp mfp;
    /** Whether the map, filter and projection, translated in UTC, compute otherwise in another time zone. */
    private final boolean zoneDependent;

    private PointLookup(String collection, CatalogEntry.Index index, int[] keyParams, Mfp mfp, boolean zoneDependent) {
        this.collection = collection;
        this.index = index;
        this.keyParams = keyParams;
        this.mfp = mfp;
        this.zoneDependent = zoneDependent;
    }

    /** Whether this lookup answers only in a UTC session: its expressions, translated once in UTC, depend on the time zone. */
    boolean zoneDependent() {
        return zoneDependent;
    }

    /**
     * The lookup {@code q} is, against the controller's catalog and running indexes now, or null when it is
     * no such lookup (no index whose every key column a parameter pins, another operator, parameters
     * elsewhere, a sort, {@code AS OF} given as a parameter).
     */
    static PointLookup of(SqlEngine.Query q, Controller controller) {
        if (q.sort() != null || q.asOfParam() != null) {
            return null;
        }
        RelNode rel = q.body();
        // a projection with window functions reads its whole input, never a key or a row at a time
        Project project = rel instanceof Project p && !org.apache.calcite.rex.RexOver.containsOver(p.getProjects(), null) ? p : null;
        rel = project != null ? project.getInput() : rel;
        Filter filter = rel instanceof Filter f ? f : null;
        rel = filter != null ? filter.getInput() : rel;
        if (!(rel instanceof TableScan scan) || filter == null) {
            return null;
        }
        List<String> qn = scan.getTable().getQualifiedName();
        String target = qn.get(qn.size() - 1);
        CatalogEntry table = controller.catalog().stream().filter(e -> e.name().equals(target)).findFirst().orElse(null);
        if (table == null) {
            return null;
        }
        Schema schema = table.schema();
        List<DatumType> types = schema.types();
        // the column each `column = parameter` conjunct pins (the first pinning a column wins), and the rest
        Map<Integer, Integer> pinned = new HashMap<>();
        Map<Integer, RexNode> pinning = new HashMap<>();
        List<RexNode> rest = new ArrayList<>();
        for (RexNode c : RelOptUtil.conjunctions(filter.getCondition())) {
            int[] pin = columnEqualsParameter(c);
            if (pin != null && !pinned.containsKey(pin[0]) && AccessPath.exactKey(types.get(pin[0]))
                    && q.paramTypes().get(q.params().number(pin[1]) - 1) == types.get(pin[0])) {
                pinned.put(pin[0], pin[1]);
                pinning.put(pin[0], c);
            } else {
                rest.add(c);
            }
        }
        if (pinned.isEmpty()) {
            return null;
        }
        // the rest of the query may hold no parameter: it is translated once, for every run
        RexTranslator tr = new RexTranslator(i -> {
            throw new ParameterElsewhere();
        }, i -> q.paramTypes().get(q.params().number(i) - 1)).zone(null).statementTime(() -> {
            // the statement's time differs from run to run, so it is no lookup translated once
            throw new ParameterElsewhere();
        });
        try {
            tr.cluster(scan);
            List<Expr> conjuncts = new ArrayList<>();
            for (RexNode c : rest) {
                conjuncts.addAll(RelTranslator.conjuncts(tr.rex(c, types)));
            }
            // the index the chooser takes for every column the filter pins: a lookup here only if the parameters make its key
            Set<String> pinnedNames = new HashSet<>();
            pinned.keySet().forEach(c -> pinnedNames.add(schema.column(c).name()));
            AccessPath.pinnedColumns(conjuncts, schema).forEach(c -> pinnedNames.add(schema.column(c).name()));
            CatalogEntry.Index best = controller.lookupIndex(target, pinnedNames);
            if (best == null || !best.key().stream().allMatch(k -> pinned.containsKey(schema.indexOf(k)))) {
                return null;
            }
            int[] keyParams = new int[best.key().size()];
            Set<Integer> used = new HashSet<>();
            for (int i = 0; i < keyParams.length; i++) {
                int column = schema.indexOf(best.key().get(i));
                keyParams[i] = q.params().number(pinned.get(column)) - 1;
                used.add(column);
            }
            for (Map.Entry<Integer, RexNode> p : pinning.entrySet()) {
                if (!used.contains(p.getKey())) {
                    conjuncts.addAll(RelTranslator.conjuncts(tr.rex(p.getValue(), types)));
                }
            }
            Mfp mfp = mfp(tr, project, types, conjuncts);
            return new PointLookup(target, best, keyParams, mfp, tr.zoneDependent());
        } catch (ParameterElsewhere e) {
            return null;
        }
    }

    /**
     * The read's map, filter and projection over one collection of {@code types}: the select list of
     * {@code project} (null: every column), a column as itself, any other expression computed into a
     * column of the map; {@code filter}, the conjuncts every row passes.
     */
    static Mfp mfp(RexTranslator tr, Project project, List<DatumType> types, List<Expr> filter) {
        List<Expr> map = new ArrayList<>();
        List<Integer> projection = null;
        if (project != null) {
            projection = new ArrayList<>();
            for (RexNode e : project.getProjects()) {
                Expr x = tr.rex(e, types);
                if (x instanceof Expr.Col c) {
                    projection.add(c.index());
                } else {
                    projection.add(types.size() + map.size());
                    map.add(x);
                }
            }
        }
        return new Mfp(map, filter, projection);
    }

    /**
     * The read of the key the parameter {@code values} make (already of their types), or null when one of
     * them is NULL (no row's key equals NULL: the general read answers that). It carries the lookup as its
     * path, and the equalities of the key columns in its filter, should the index have gone when it runs.
     */
    ReadRequest request(List<Object> values, ReadRequest.Isolation isolation, Long asOf) {
        Object[] key = new Object[keyParams.length];
        List<Expr> filter = new ArrayList<>(keyParams.length + mfp.filter().size());
        for (int i = 0; i < key.length; i++) {
            key[i] = values.get(keyParams[i]);
            if (key[i] == null) {
                return null;
            }
            int column = index.schema().indexOf(index.key().get(i));
            filter.add(new Expr.Call(Func.EQ, List.of(new Expr.Col(column), new Expr.Lit(key[i], index.schema().column(column).type()))));
        }
        filter.addAll(mfp.filter());
        return new ReadRequest(collection, null, null, new Mfp(mfp.map(), filter, mfp.project()), null, isolation, asOf, null)
                .withPath(new AccessPath.Lookup(index, List.of(Row.of(key)), mfp));
    }

    /** {column, Calcite's parameter index} when {@code c} is {@code column = parameter} (either way round), else null. */
    private static int[] columnEqualsParameter(RexNode c) {
        if (c.getKind() != SqlKind.EQUALS || !(c instanceof RexCall call)) {
            return null;
        }
        RexNode a = call.getOperands().get(0);
        RexNode b = call.getOperands().get(1);
        if (a instanceof RexInputRef col && b instanceof RexDynamicParam p) {
            return new int[] {col.getIndex(), p.getIndex()};
        }
        if (b instanceof RexInputRef col && a instanceof RexDynamicParam p) {
            return new int[] {col.getIndex(), p.getIndex()};
        }
        return null;
    }

    /** A parameter outside the key's conjuncts: the statement is no point lookup of this kind. */
    private static final class ParameterElsewhere extends RuntimeException {
        ParameterElsewhere() {
            super(null, null, false, false);
        }
    }
}
