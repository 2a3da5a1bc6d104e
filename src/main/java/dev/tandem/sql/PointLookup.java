package dev.tandem.sql;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.ReadRequest;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * parameters into a key row. Any other query, or a run with a NULL key value, is read as
 * {@link SqlEngine#read} reads it, which chooses the same kind of access.
 *
 * <p>The conjuncts that pin the key are left out of the filter: the lookup returns exactly the rows whose
 * key equals the parameters, as datums, which is SQL's equality for the key types taken here (floats,
 * whose {@code NaN} and {@code -0} compare in ways of their own, are not).
 */
final class PointLookup {

    private final String index;
    /** Per key column of the index, in its order: the position of the parameter that gives its value. */
    private final int[] keyParams;
    private final Mfp mfp;
    /** Whether the map, filter and projection, translated in UTC, compute otherwise in another time zone. */
    private final boolean zoneDependent;

    private PointLookup(String index, int[] keyParams, Mfp mfp, boolean zoneDependent) {
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
     * The lookup {@code q} is, against the catalog {@code entries} it was planned with, or null when it is
     * no such lookup (no index whose every key column a parameter pins, another operator, parameters
     * elsewhere, a sort, {@code AS OF} given as a parameter).
     */
    static PointLookup of(SqlEngine.Query q, List<CatalogEntry> entries) {
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
        CatalogEntry table = entries.stream().filter(e -> e.name().equals(target)).findFirst().orElse(null);
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
            if (pin != null && !pinned.containsKey(pin[0]) && keyType(types.get(pin[0]))
                    && q.paramTypes().get(q.params().number(pin[1]) - 1) == types.get(pin[0])) {
                pinned.put(pin[0], pin[1]);
                pinning.put(pin[0], c);
            } else {
                rest.add(c);
            }
        }
        CatalogEntry.Index best = null;
        for (CatalogEntry e : entries) {
            if (e instanceof CatalogEntry.Index idx && idx.on().equals(target)
                    && idx.key().stream().allMatch(k -> pinned.containsKey(schema.indexOf(k)))
                    && (best == null || idx.key().size() > best.key().size())) {
                best = idx;
            }
        }
        if (best == null) {
            return null;
        }
        int[] keyParams = new int[best.key().size()];
        List<Integer> used = new ArrayList<>();
        for (int i = 0; i < keyParams.length; i++) {
            int column = schema.indexOf(best.key().get(i));
            keyParams[i] = q.params().number(pinned.get(column)) - 1;
            used.add(column);
        }
        for (Map.Entry<Integer, RexNode> p : pinning.entrySet()) {
            if (!used.contains(p.getKey())) {
                rest.add(p.getValue());
            }
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
            Mfp mfp = mfp(tr, project, types, conjuncts);
            return new PointLookup(best.name(), keyParams, mfp, tr.zoneDependent());
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
     * them is NULL (no row's key equals NULL: the general read answers that).
     */
    ReadRequest request(List<Object> values, ReadRequest.Isolation isolation, Long asOf) {
        Object[] key = new Object[keyParams.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = values.get(keyParams[i]);
            if (key[i] == null) {
                return null;
            }
        }
        return new ReadRequest(index, null, List.of(Row.of(key)), mfp, null, isolation, asOf, null);
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

    /** Whether equality of {@code t} in SQL is equality of its datums. */
    static boolean keyType(DatumType t) {
        return t == DatumType.INT64 || t == DatumType.STRING || t == DatumType.BOOL || t == DatumType.TIMESTAMP
                || t == DatumType.DATE || t == DatumType.TIMESTAMPTZ || t == DatumType.UUID || t == DatumType.BYTEA
                || t == DatumType.TIME;
    }

    /** A parameter outside the key's conjuncts: the statement is no point lookup of this kind. */
    private static final class ParameterElsewhere extends RuntimeException {
        ParameterElsewhere() {
            super(null, null, false, false);
        }
    }
}
