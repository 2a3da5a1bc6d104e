package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.TimestampString;

/**
 * Translates Calcite's relational algebra into Tandem plans and its row expressions into Tandem
 * expressions. Every operator and function it does not know is refused as "not supported: ...", so a
 * query either means in Tandem what it means in SQL or does not run.
 *
 * <p>SQL constructs without a Tandem operator of their own are built from the operators there are:
 * outer joins are the inner join plus the unmatched rows padded with NULLs (the input less its
 * semi-join with the other side's distinct keys); {@code EXCEPT [ALL]} and {@code INTERSECT [ALL]} are
 * unions with negation and threshold; {@code avg} is {@code sum/count}; an aggregate without
 * {@code GROUP BY} answers one row over an empty input too (the default row, added when the
 * reduce has none).
 */
final class RelTranslator {

    /** A plan and the Tandem types of its columns. */
    record Translated(Plan plan, List<DatumType> types) {
    }

    /** The error of a scalar subquery that yields several rows (SQLSTATE 21000). */
    static final String TWO_ROWS = "more than one row returned by a subquery used as an expression";

    private final IntFunction<Object> params;
    private final IntFunction<DatumType> paramTypes;
    /** The time {@code now()} and its kin read (null: none, as in a maintained view). */
    private java.util.function.Supplier<SqlSession.Times> statementTime;
    private RexBuilder rexBuilder;

    /**
     * @param params the value of dynamic parameter {@code i} (in Calcite's numbering), already of its type
     * @param paramTypes the type of dynamic parameter {@code i}
     */
    RelTranslator(IntFunction<Object> params, IntFunction<DatumType> paramTypes) {
        this.params = params;
        this.paramTypes = paramTypes;
    }

    /**
     * This translator with {@code time} as the statement's time, which {@code now()}, {@code current_timestamp},
     * {@code current_date} and {@code localtimestamp} read (one value for the whole statement, as in PostgreSQL).
     */
    RelTranslator statementTime(java.util.function.Supplier<SqlSession.Times> time) {
        this.statementTime = time;
        return this;
    }

    /** The statement's time; refused ({@code 0A000}) where a statement has none, in a maintained view. */
    SqlSession.Times statementTime(String function) {
        if (statementTime == null) {
            throw SqlException.notSupported(function + " in a view, a subscription, a CHECK or a write's RETURNING (a maintained result has no"
                    + " statement time to bind it to; only a one-shot query or write reads the time)");
        }
        return statementTime.get();
    }

    Translated translate(RelNode rel) {
        rexBuilder = rel.getCluster().getRexBuilder();
        return rel(rel);
    }

    private Translated rel(RelNode rel) {
        return switch (rel) {
            case TableScan scan -> {
                List<String> name = scan.getTable().getQualifiedName();
                yield new Translated(Plan.getByName(name.get(name.size() - 1)), typesOf(rel));
            }
            case Values values -> values(values);
            case Filter filter -> {
                Translated in = rel(filter.getInput());
                Expr cond = rex(filter.getCondition(), in.types());
                yield new Translated(new Plan.MapFilterProject(in.plan(), Mfp.filter(List.of(cond))), in.types());
            }
            case Project project when RexOver.containsOver(project.getProjects(), null) -> windowProject(project);
            case Project project -> {
                Translated in = rel(project.getInput());
                List<Expr> exprs = new ArrayList<>();
                for (RexNode e : project.getProjects()) {
                    exprs.add(rex(e, in.types()));
                }
                yield project(in, exprs);
            }
            case Join join -> join(join);
            case Aggregate agg -> aggregate(agg);
            case Union union -> setOp(union);
            case Minus minus -> setOp(minus);
            case Intersect intersect -> setOp(intersect);
            case Sort sort -> sort(sort);
            default -> throw SqlException.notSupported("the relational operator " + rel.getRelTypeName().replaceFirst("^Logical", ""));
        };
    }

    /** The column of each window call of the projection being translated, by its digest. */
    private final java.util.Map<String, Integer> overColumns = new java.util.HashMap<>();

    /**
     * A projection holding window calls: the input, extended with the window keys that are not plain
     * columns, then one {@link Plan.Window} per distinct window (PARTITION BY and ORDER BY), each adding
     * its functions' columns, then the projection over those columns.
     */
    private Translated windowProject(Project project) {
        Translated in = rel(project.getInput());
        List<RexOver> overs = new ArrayList<>();
        for (RexNode e : project.getProjects()) {
            collectOvers(e, overs);
        }
        List<DatumType> types = new ArrayList<>(in.types());
        List<Expr> extra = new ArrayList<>();
        java.util.Map<String, Integer> keyColumns = new java.util.HashMap<>();
        java.util.function.Function<RexNode, Integer> columnOf = node -> {
            if (node instanceof RexInputRef ref) {
                return ref.getIndex();
            }
            return keyColumns.computeIfAbsent(node.toString(), d -> {
                Expr e = rex(node, in.types());
                extra.add(e);
                types.add(typeOf(e, in.types()));
                return types.size() - 1;
            });
        };
        java.util.Map<String, List<RexOver>> windows = new java.util.LinkedHashMap<>();
        java.util.Map<String, List<Integer>> partitions = new java.util.HashMap<>();
        java.util.Map<String, List<Plan.Ordering>> orders = new java.util.HashMap<>();
        for (RexOver over : overs) {
            org.apache.calcite.rex.RexWindow w = over.getWindow();
            List<Integer> partition = new ArrayList<>();
            for (RexNode k : w.partitionKeys) {
                partition.add(columnOf.apply(k));
            }
            List<Plan.Ordering> order = new ArrayList<>();
            for (org.apache.calcite.rex.RexFieldCollation fc : w.orderKeys) {
                boolean desc = fc.getDirection().isDescending();
                boolean nullsLast = switch (fc.getNullDirection()) {
                    case LAST -> true;
                    case FIRST -> false;
                    default -> !desc;
                };
                order.add(new Plan.Ordering(columnOf.apply(fc.left), desc, nullsLast));
            }
            String spec = partition + " " + order;
            partitions.put(spec, partition);
            orders.put(spec, order);
            windows.computeIfAbsent(spec, x -> new ArrayList<>()).add(over);
        }
        Plan plan = extra.isEmpty() ? in.plan() : new Plan.MapFilterProject(in.plan(), new Mfp(extra, List.of(), null));
        List<DatumType> baseTypes = List.copyOf(types);
        for (java.util.Map.Entry<String, List<RexOver>> e : windows.entrySet()) {
            List<Plan.WindowFunc> funcs = new ArrayList<>();
            for (RexOver over : e.getValue()) {
                if (overColumns.containsKey(over.toString())) {
                    continue;
                }
                Plan.WindowFunc f = windowFunc(over, baseTypes, !orders.get(e.getKey()).isEmpty());
                funcs.add(f);
                overColumns.put(over.toString(), types.size());
                types.add(f.expr() == null || f.kind() == Plan.WindowKind.COUNT ? DatumType.INT64 : typeOf(f.expr(), baseTypes));
            }
            if (!funcs.isEmpty()) {
                plan = new Plan.Window(plan, partitions.get(e.getKey()), orders.get(e.getKey()), funcs);
            }
        }
        Translated windowed = new Translated(plan, List.copyOf(types));
        List<Expr> exprs = new ArrayList<>();
        for (RexNode e : project.getProjects()) {
            exprs.add(rex(e, windowed.types()));
        }
        return project(windowed, exprs);
    }

    private static void collectOvers(RexNode node, List<RexOver> out) {
        if (node instanceof RexOver over) {
            out.add(over);
        } else if (node instanceof RexCall call) {
            for (RexNode operand : call.getOperands()) {
                collectOvers(operand, out);
            }
        }
    }

    /** One window call as a plan function; what the window operator does not compute is refused (0A000). */
    private Plan.WindowFunc windowFunc(RexOver over, List<DatumType> in, boolean ordered) {
        String name = over.getOperator().getName().toLowerCase(Locale.ROOT);
        if (over.isDistinct()) {
            throw SqlException.notSupported(name + "(DISTINCT ...) OVER ...");
        }
        if (over.ignoreNulls()) {
            throw SqlException.notSupported(name + "(...) IGNORE NULLS OVER ...");
        }
        List<RexNode> args = over.getOperands();
        Expr arg = args.isEmpty() ? null : rex(args.get(0), in);
        DatumType argType = arg == null ? null : typeOf(arg, in);
        return switch (over.getKind()) {
            case ROW_NUMBER -> new Plan.WindowFunc(Plan.WindowKind.ROW_NUMBER, null, 0);
            case RANK -> new Plan.WindowFunc(Plan.WindowKind.RANK, null, 0);
            case DENSE_RANK -> new Plan.WindowFunc(Plan.WindowKind.DENSE_RANK, null, 0);
            case LAG, LEAD -> {
                long offset = 1;
                if (args.size() > 1) {
                    Object v = args.get(1) instanceof RexLiteral l ? literalValue(l)
                            : args.get(1) instanceof RexDynamicParam p ? params.apply(p.getIndex()) : null;
                    if (!(v instanceof Number n)) {
                        throw SqlException.notSupported(name + " with an offset that is not an integer constant");
                    }
                    offset = n.longValue();
                }
                if (args.size() > 2 && !(args.get(2) instanceof RexLiteral l && l.isNull())) {
                    throw SqlException.notSupported(name + " with a default value (its third argument)");
                }
                boolean lag = (over.getKind() == SqlKind.LAG) == (offset >= 0);
                yield new Plan.WindowFunc(lag ? Plan.WindowKind.LAG : Plan.WindowKind.LEAD, arg, Math.abs(offset));
            }
            case COUNT, SUM, SUM0, MIN, MAX -> {
                refuseFrame(over, name, ordered);
                if (over.getKind() == SqlKind.COUNT) {
                    yield new Plan.WindowFunc(Plan.WindowKind.COUNT, arg, 0);
                }
                if ((over.getKind() == SqlKind.MIN || over.getKind() == SqlKind.MAX) && argType == DatumType.BOOL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name + "(boolean) does not exist");
                }
                boolean sum = over.getKind() == SqlKind.SUM || over.getKind() == SqlKind.SUM0;
                if (sum && argType != DatumType.INT64 && argType != DatumType.FLOAT64 && argType != DatumType.NUMERIC) {
                    throw SqlException.notSupported("sum of " + SqlTypes.pgName(argType));
                }
                // $SUM0 comes from SUM(x) OVER, which Calcite writes as CASE WHEN COUNT(x) OVER > 0 THEN $SUM0(x) OVER:
                // the plan's sum is NULL exactly when that count is 0, so the CASE keeps its meaning
                yield new Plan.WindowFunc(sum ? Plan.WindowKind.SUM : over.getKind() == SqlKind.MIN ? Plan.WindowKind.MIN : Plan.WindowKind.MAX,
                        arg, 0);
            }
            default -> throw SqlException.notSupported("the window function " + name
                    + " (supported: row_number, rank, dense_rank, lag, lead, count, sum, min, max)");
        };
    }

    /**
     * Refuses an aggregate's frame other than the default: RANGE UNBOUNDED PRECEDING to CURRENT ROW
     * (with peers) when ordered, the whole partition when not.
     */
    private static void refuseFrame(RexOver over, String name, boolean ordered) {
        org.apache.calcite.rex.RexWindow w = over.getWindow();
        boolean fromStart = w.getLowerBound().isUnbounded() && w.getLowerBound().isPreceding();
        boolean toEnd = w.getUpperBound().isUnbounded() && w.getUpperBound().isFollowing();
        boolean toPeers = w.getUpperBound().isCurrentRow() && !w.isRows();
        boolean supported = fromStart && (ordered ? toPeers : toEnd || toPeers);
        if (!supported) {
            throw SqlException.notSupported("the window frame " + (w.isRows() ? "ROWS" : "RANGE") + " BETWEEN " + w.getLowerBound()
                    + " AND " + w.getUpperBound() + " of " + name + " (supported: the default frame, RANGE BETWEEN UNBOUNDED PRECEDING"
                    + " AND CURRENT ROW, or the whole partition without ORDER BY)");
        }
    }

    /** A plan computing {@code exprs} over the input's rows. */
    private Translated project(Translated in, List<Expr> exprs) {
        List<DatumType> types = new ArrayList<>();
        List<Integer> cols = new ArrayList<>();
        List<Expr> map = new ArrayList<>();
        for (Expr e : exprs) {
            types.add(typeOf(e, in.types()));
            if (e instanceof Expr.Col c) {
                cols.add(c.index());
            } else {
                cols.add(in.types().size() + map.size());
                map.add(e);
            }
        }
        boolean identity = map.isEmpty() && cols.size() == in.types().size();
        for (int i = 0; identity && i < cols.size(); i++) {
            identity = cols.get(i) == i;
        }
        if (identity) {
            return in;
        }
        return new Translated(new Plan.MapFilterProject(in.plan(), new Mfp(map, List.of(), cols)), types);
    }

    /** Refuses an integer literal beyond bigint's range: a numeric in PostgreSQL, a double here, it would print otherwise. */
    private static void exactLiteral(RexLiteral lit, DatumType t) {
        if (t == DatumType.FLOAT64 && lit.getType().getSqlTypeName() == SqlTypeName.DECIMAL && lit.getType().getScale() == 0 && !lit.isNull()) {
            throw SqlException.notSupported("the integer " + lit.getValueAs(BigDecimal.class).toPlainString()
                    + " beyond bigint's range (a numeric in PostgreSQL; Tandem's integers are bigint)");
        }
    }

    private Translated values(Values values) {
        List<DatumType> types = new ArrayList<>();
        for (RelDataTypeField f : values.getRowType().getFieldList()) {
            DatumType t = SqlTypes.of(f.getType());
            types.add(t == null ? DatumType.STRING : t);
        }
        List<Row> rows = new ArrayList<>();
        for (List<RexLiteral> tuple : values.getTuples()) {
            List<Object> vals = new ArrayList<>();
            for (int i = 0; i < tuple.size(); i++) {
                exactLiteral(tuple.get(i), SqlTypes.of(tuple.get(i).getType()));
                if (types.get(i) == DatumType.NUMERIC) {
                    refuseCastLiteral(tuple.get(i));
                }
                vals.add(SqlTypes.convert(literalValue(tuple.get(i)), types.get(i)));
            }
            rows.add(Row.pack(types, vals));
        }
        return new Translated(new Plan.Constant(rows, types), types);
    }

    // ------------------------------------------------------------------ joins

    private Translated join(Join join) {
        JoinRelType type = join.getJoinType();
        if (type == JoinRelType.RIGHT) {
            // b RIGHT JOIN a is a LEFT JOIN b, with the columns put back in order
            Translated left = rel(join.getLeft());
            Translated right = rel(join.getRight());
            int nl = left.types().size();
            int nr = right.types().size();
            List<Expr> swapped = new ArrayList<>();
            List<DatumType> concat = concat(left.types(), right.types());
            List<Expr> conjuncts = conjuncts(rex(join.getCondition(), concat));
            List<Expr> remapped = new ArrayList<>();
            for (Expr c : conjuncts) {
                remapped.add(shift(c, i -> i < nl ? i + nr : i - nl));
            }
            Translated lj = leftJoin(right, left, remapped, false);
            for (int i = 0; i < nl; i++) {
                swapped.add(Expr.col(nr + i));
            }
            for (int i = 0; i < nr; i++) {
                swapped.add(Expr.col(i));
            }
            return project(lj, swapped);
        }
        Translated left = rel(join.getLeft());
        Translated right = rel(join.getRight());
        List<DatumType> concat = concat(left.types(), right.types());
        List<Expr> conjuncts = conjuncts(rex(join.getCondition(), concat));
        return switch (type) {
            case INNER -> innerJoin(left, right, conjuncts);
            case LEFT -> leftJoin(left, right, conjuncts, false);
            case FULL -> leftJoin(left, right, conjuncts, true);
            default -> throw SqlException.notSupported(type.name().toLowerCase(Locale.ROOT) + " join");
        };
    }

    /** Equality keys between the two sides, and the rest of the condition. */
    private record JoinKeys(List<int[]> keys, List<Expr> rest) {
    }

    private static JoinKeys keys(List<Expr> conjuncts, List<DatumType> concat, int nl) {
        List<int[]> keys = new ArrayList<>();
        List<Expr> rest = new ArrayList<>();
        for (Expr c : conjuncts) {
            if (c instanceof Expr.Call call && call.func() == Func.EQ
                    && call.args().get(0) instanceof Expr.Col a && call.args().get(1) instanceof Expr.Col b
                    && concat.get(a.index()) == concat.get(b.index())
                    // jsonb's SQL equality is not its datums' ('1.0' = '1.00'): a condition, never a key
                    && concat.get(a.index()) != DatumType.JSONB
                    && (a.index() < nl) != (b.index() < nl)) {
                int l = Math.min(a.index(), b.index());
                int r = Math.max(a.index(), b.index()) - nl;
                keys.add(new int[] {l, r});
            } else {
                rest.add(c);
            }
        }
        return new JoinKeys(keys, rest);
    }

    private Translated innerJoin(Translated left, Translated right, List<Expr> conjuncts) {
        int nl = left.types().size();
        List<DatumType> concat = concat(left.types(), right.types());
        JoinKeys k = keys(conjuncts, concat, nl);
        Plan join = new Plan.Join(List.of(left.plan(), right.plan()), on(k.keys()));
        if (!k.rest().isEmpty()) {
            join = new Plan.MapFilterProject(join, Mfp.filter(k.rest()));
        }
        return new Translated(join, concat);
    }

    private static List<List<Plan.JoinColumn>> on(List<int[]> keys) {
        List<List<Plan.JoinColumn>> on = new ArrayList<>();
        for (int[] k : keys) {
            on.add(List.of(new Plan.JoinColumn(0, k[0]), new Plan.JoinColumn(1, k[1])));
        }
        return on;
    }

    /**
     * {@code left LEFT JOIN right} (and with {@code full}, FULL JOIN): the inner join, plus each left
     * row without a match padded with NULLs (plus, for a full join, each unmatched right row). The
     * condition must be equalities between the sides and conditions on the right side alone (the
     * left side alone too for a full join's... no: only equalities for a full join).
     */
    private Translated leftJoin(Translated left, Translated right, List<Expr> conjuncts, boolean full) {
        int nl = left.types().size();
        int nr = right.types().size();
        List<DatumType> concat = concat(left.types(), right.types());
        JoinKeys k = keys(conjuncts, concat, nl);
        List<Expr> rightOnly = new ArrayList<>();
        for (Expr c : k.rest()) {
            if (!full && minColumn(c) >= nl) {
                rightOnly.add(shift(c, i -> i - nl));
            } else {
                throw SqlException.notSupported((full ? "full" : "outer") + " join condition other than equalities between the two sides"
                        + (full ? "" : " and conditions on the inner side"));
            }
        }
        Translated r = rightOnly.isEmpty() ? right
                : new Translated(new Plan.MapFilterProject(right.plan(), Mfp.filter(rightOnly)), right.types());
        Plan inner = new Plan.Join(List.of(left.plan(), r.plan()), on(k.keys()));
        List<int[]> flipped = k.keys().stream().map(a -> new int[] {a[1], a[0]}).toList();
        List<Plan> parts = new ArrayList<>();
        parts.add(inner);
        parts.add(padRight(unmatched(left, k.keys().stream().map(a -> a[0]).toList(), r, k.keys().stream().map(a -> a[1]).toList()), right.types()));
        if (full) {
            Plan unmatchedRight = unmatched(r, flipped.stream().map(a -> a[0]).toList(), left, flipped.stream().map(a -> a[1]).toList());
            List<Expr> map = new ArrayList<>();
            List<Integer> cols = new ArrayList<>();
            for (int i = 0; i < nl; i++) {
                map.add(Expr.lit(null, left.types().get(i)));
                cols.add(nr + i);
            }
            for (int i = 0; i < nr; i++) {
                cols.add(i);
            }
            parts.add(new Plan.MapFilterProject(unmatchedRight, new Mfp(map, List.of(), cols)));
        }
        return new Translated(new Plan.Union(parts), concat);
    }

    /** The rows of {@code side} whose {@code keys} match no row of {@code other} on {@code otherKeys}, with their multiplicities. */
    private static Plan unmatched(Translated side, List<Integer> keys, Translated other, List<Integer> otherKeys) {
        Plan distinctKeys = new Plan.Reduce(other.plan(), otherKeys, List.of());
        List<List<Plan.JoinColumn>> on = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            on.add(List.of(new Plan.JoinColumn(0, keys.get(i)), new Plan.JoinColumn(1, i)));
        }
        List<Integer> sideCols = new ArrayList<>();
        for (int i = 0; i < side.types().size(); i++) {
            sideCols.add(i);
        }
        Plan matched = new Plan.MapFilterProject(new Plan.Join(List.of(side.plan(), distinctKeys), on), Mfp.project(sideCols));
        return new Plan.Union(List.of(side.plan(), new Plan.Negate(matched)));
    }

    private static Plan padRight(Plan rows, List<DatumType> padTypes) {
        List<Expr> map = new ArrayList<>();
        for (DatumType t : padTypes) {
            map.add(Expr.lit(null, t));
        }
        return new Plan.MapFilterProject(rows, new Mfp(map, List.of(), null));
    }

    // ------------------------------------------------------------------ aggregates

    private Translated aggregate(Aggregate agg) {
        Translated in = rel(agg.getInput());
        if (agg.getGroupType() == Aggregate.Group.SIMPLE) {
            return aggregate(agg, in, agg.getGroupSet().asList());
        }
        // GROUPING SETS, ROLLUP, CUBE: the union of the aggregate by each set, NULL in the columns a set does not group by
        List<Integer> all = agg.getGroupSet().asList();
        List<Plan> parts = new ArrayList<>();
        List<DatumType> types = null;
        for (org.apache.calcite.util.ImmutableBitSet set : agg.getGroupSets()) {
            List<Integer> key = set.asList();
            Translated part = aggregate(agg, in, key);
            List<Expr> cols = new ArrayList<>();
            for (int k : all) {
                int at = key.indexOf(k);
                cols.add(at >= 0 ? Expr.col(at) : Expr.lit(null, in.types().get(k)));
            }
            for (int i = key.size(); i < part.types().size(); i++) {
                cols.add(Expr.col(i));
            }
            Translated padded = project(part, cols);
            types = padded.types();
            parts.add(padded.plan());
        }
        return new Translated(parts.size() == 1 ? parts.get(0) : new Plan.Union(parts), types);
    }

    /** The aggregate's calls over {@code in} grouped by {@code key}: the key's columns, then the calls'. */
    private Translated aggregate(Aggregate agg, Translated in, List<Integer> key) {
        List<Plan.Aggregate> aggs = new ArrayList<>();
        List<DatumType> types = new ArrayList<>();
        for (int k : key) {
            types.add(in.types().get(k));
        }
        int n = key.size();
        // the final columns, over the reduce's output (avg and sum0 need a step after the reduce)
        List<Expr> finals = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            finals.add(Expr.col(i));
        }
        List<Object> defaults = new ArrayList<>();
        // per aggregate, the column whose distinct values it reads (DISTINCT), or -1 for all rows
        List<Integer> distinctOf = new ArrayList<>();
        // columns computed for aggregates of the distinct values of an expression (a FILTER's), after the input's
        List<Expr> extra = new ArrayList<>();
        for (AggregateCall call : agg.getAggCallList()) {
            boolean stringAgg = call.getAggregation().getKind() == SqlKind.LISTAGG || call.getAggregation().getName().equalsIgnoreCase("string_agg");
            if (call.getArgList().size() > (stringAgg ? 2 : 1)) {
                throw SqlException.notSupported("aggregate " + call.getAggregation().getName() + " of several arguments");
            }
            Expr arg = call.getArgList().isEmpty() ? null : Expr.col(call.getArgList().get(0));
            DatumType argType = arg == null ? null : in.types().get(call.getArgList().get(0));
            if (call.filterArg >= 0) {
                // FILTER (WHERE f): a row f does not keep (false or NULL) is a NULL argument, which every aggregate skips
                arg = Expr.call(Func.IF, Expr.col(call.filterArg), arg == null ? Expr.lit(true, DatumType.BOOL) : arg,
                        Expr.lit(null, arg == null ? DatumType.BOOL : argType));
            }
            SqlKind kind = call.getAggregation().getKind();
            String aggName = call.getAggregation().getName().toLowerCase(Locale.ROOT);
            int at = n + aggs.size();
            // min and max of the distinct values are those of all values
            int distinct = call.isDistinct() && arg != null && kind != SqlKind.MIN && kind != SqlKind.MAX
                    ? arg instanceof Expr.Col c ? c.index() : in.types().size() + extra.size() : -1;
            if (distinct >= in.types().size()) {
                extra.add(arg);
            }
            if (stringAgg) {
                Expr separator = agg.getInput() instanceof org.apache.calcite.rel.core.Project p
                        ? rex(p.getProjects().get(call.getArgList().get(1)), typesOf(p.getInput())) : null;
                PgAggregates.stringAgg(call, separator, arg, argType, at, aggs, finals, types, defaults);
                while (distinctOf.size() < aggs.size()) {
                    distinctOf.add(-1);
                }
                continue;
            }
            if (PgAggregates.isOwn(aggName, kind)) {
                if (call.isDistinct() && !aggName.startsWith("bool") && !aggName.equals("every")) {
                    throw SqlException.notSupported(aggName + "(DISTINCT ...)");
                }
                PgAggregates.add(aggName, arg, argType, at, aggs, finals, types, defaults);
                while (distinctOf.size() < aggs.size()) {
                    distinctOf.add(-1);
                }
                continue;
            }
            switch (kind) {
                case COUNT -> {
                    aggs.add(new Plan.Aggregate(AggregateFunc.COUNT, arg));
                    finals.add(Expr.col(at));
                    types.add(DatumType.INT64);
                    defaults.add(0L);
                }
                case SUM, SUM0, MIN, MAX -> {
                    if ((kind == SqlKind.MIN || kind == SqlKind.MAX) && (argType == DatumType.BOOL || argType == DatumType.UUID
                            || argType == DatumType.JSONB || argType == DatumType.BYTEA)) {
                        // PostgreSQL has no min/max of boolean (bool_and/bool_or are its aggregates) or of uuid
                        throw new SqlException(SqlException.UNDEFINED_FUNCTION,
                                "function " + kind.name().toLowerCase(Locale.ROOT) + "(" + SqlTypes.pgName(argType) + ") does not exist");
                    }
                    if (argType.isArray()) {
                        throw SqlException.notSupported(kind.name().toLowerCase(Locale.ROOT) + " of " + SqlTypes.pgName(argType));
                    }
                    if (kind != SqlKind.MIN && kind != SqlKind.MAX && argType != DatumType.INT64 && argType != DatumType.FLOAT64
                            && argType != DatumType.NUMERIC) {
                        throw SqlException.notSupported(kind.name().toLowerCase(Locale.ROOT) + " of " + SqlTypes.pgName(argType));
                    }
                    AggregateFunc f = kind == SqlKind.MIN ? AggregateFunc.MIN : kind == SqlKind.MAX ? AggregateFunc.MAX : AggregateFunc.SUM;
                    aggs.add(new Plan.Aggregate(f, arg));
                    finals.add(kind == SqlKind.SUM0
                            ? Expr.call(Func.COALESCE, Expr.col(at), Expr.lit(zero(argType), argType))
                            : Expr.col(at));
                    types.add(argType);
                    defaults.add(kind == SqlKind.SUM0 ? zero(argType) : null);
                }
                case AVG -> {
                    if (argType != DatumType.INT64 && argType != DatumType.FLOAT64 && argType != DatumType.NUMERIC) {
                        throw SqlException.notSupported("avg of " + SqlTypes.pgName(argType));
                    }
                    aggs.add(new Plan.Aggregate(AggregateFunc.SUM, arg));
                    aggs.add(new Plan.Aggregate(AggregateFunc.COUNT, arg));
                    // PostgreSQL's avg of an integer or numeric is the numeric quotient of the sum by the count
                    DatumType avg = argType == DatumType.FLOAT64 ? DatumType.FLOAT64 : DatumType.NUMERIC;
                    Expr sum = argType == avg ? Expr.col(at) : Expr.cast(Expr.col(at), avg);
                    finals.add(Expr.call(Func.DIV, sum, Expr.cast(Expr.col(at + 1), avg)));
                    types.add(avg);
                    defaults.add(null);
                }
                case LITERAL_AGG -> {
                    // the same literal for every group (Calcite's mark that a group exists)
                    Expr lit = rex(call.rexList.get(0), in.types());
                    aggs.add(new Plan.Aggregate(AggregateFunc.COUNT, null));
                    finals.add(lit);
                    types.add(typeOf(lit, in.types()));
                    defaults.add(null);
                }
                case SINGLE_VALUE -> {
                    // a scalar subquery's value: its one row's, NULL for none, PostgreSQL's error 21000 for several
                    aggs.add(new Plan.Aggregate(AggregateFunc.COUNT, null));
                    aggs.add(new Plan.Aggregate(AggregateFunc.MAX, arg));
                    finals.add(Expr.call(Func.IF, Expr.call(Func.GT, Expr.col(at), Expr.lit(1L, DatumType.INT64)),
                            new Expr.Call(Func.ERROR, List.of(Expr.lit(TWO_ROWS, DatumType.STRING)), argType), Expr.col(at + 1)));
                    types.add(argType);
                    defaults.add(null);
                }
                default -> throw SqlException.notSupported("aggregate function " + call.getAggregation().getName().toLowerCase(Locale.ROOT));
            }
            while (distinctOf.size() < aggs.size()) {
                distinctOf.add(distinct);
            }
        }
        if (!extra.isEmpty()) {
            List<Expr> cols = new ArrayList<>();
            for (int i = 0; i < in.types().size(); i++) {
                cols.add(Expr.col(i));
            }
            cols.addAll(extra);
            in = project(in, cols);
        }
        List<DatumType> reduceTypes = new ArrayList<>(types.subList(0, n));
        for (Plan.Aggregate a : aggs) {
            reduceTypes.add(a.func() == AggregateFunc.COUNT ? DatumType.INT64 : typeOf(a.expr(), in.types()));
        }
        Plan reduce = distinctOf.stream().allMatch(d -> d < 0) ? new Plan.Reduce(in.plan(), key, aggs)
                : reduceDistinct(in, key, aggs, distinctOf, reduceTypes);
        Translated out = project(new Translated(reduce, reduceTypes), finals);
        if (!key.isEmpty()) {
            return out;
        }
        // Without GROUP BY an aggregate answers one row even over no rows: add the default row when the reduce has none.
        Plan defaultRow = new Plan.Constant(List.of(Row.pack(out.types(), defaults)), out.types());
        List<Expr> asDefault = new ArrayList<>();
        for (int i = 0; i < defaults.size(); i++) {
            asDefault.add(Expr.lit(defaults.get(i), out.types().get(i)));
        }
        Plan present = project(out, asDefault).plan();
        return new Translated(new Plan.Union(List.of(out.plan(), defaultRow, new Plan.Negate(present))), out.types());
    }

    /**
     * The reduce of {@code aggs} by {@code key} when some aggregate reads the distinct values of a column
     * ({@code count(DISTINCT c)}): the aggregates reading one column's distinct values reduce the
     * distinct {@code (key, c)} pairs, those reading all rows the input; each such part has one row per
     * group (a group whose {@code c} is all NULL still has its pair), so the parts, each padded with NULLs
     * in the others' columns, are put together by a reduce taking each column's one non-NULL value.
     * Every step is a reduce or a union, maintained under retractions as any is.
     */
    private static Plan reduceDistinct(Translated in, List<Integer> key, List<Plan.Aggregate> aggs, List<Integer> distinctOf,
            List<DatumType> reduceTypes) {
        int n = key.size();
        List<Integer> outKey = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            outKey.add(i);
        }
        List<Plan> parts = new ArrayList<>();
        for (int part : distinctOf.stream().distinct().toList()) {
            Plan input = in.plan();
            List<Integer> partKey = key;
            List<Plan.Aggregate> partAggs = new ArrayList<>();
            for (int i = 0; i < aggs.size(); i++) {
                if (distinctOf.get(i) == part) {
                    partAggs.add(aggs.get(i));
                }
            }
            if (part >= 0) {
                // the distinct (key, c) pairs, c at column n
                List<Integer> pairs = new ArrayList<>(key);
                pairs.add(part);
                input = new Plan.Reduce(in.plan(), pairs, List.of());
                partKey = outKey;
                partAggs = partAggs.stream().map(a -> new Plan.Aggregate(a.func(), a.expr() == null ? null : Expr.col(n))).toList();
            }
            Plan reduced = new Plan.Reduce(input, partKey, partAggs);
            List<Expr> map = new ArrayList<>();
            List<Integer> cols = new ArrayList<>(outKey);
            int next = 0;
            for (int i = 0; i < aggs.size(); i++) {
                if (distinctOf.get(i) == part) {
                    cols.add(n + next++);
                } else {
                    cols.add(n + partAggs.size() + map.size());
                    map.add(Expr.lit(null, reduceTypes.get(n + i)));
                }
            }
            if (distinctOf.stream().allMatch(d -> d == part)) {
                return reduced;
            }
            parts.add(new Plan.MapFilterProject(reduced, new Mfp(map, List.of(), cols)));
        }
        List<Plan.Aggregate> pick = new ArrayList<>();
        for (int i = 0; i < aggs.size(); i++) {
            pick.add(new Plan.Aggregate(AggregateFunc.MAX, Expr.col(n + i)));
        }
        return new Plan.Reduce(new Plan.Union(parts), outKey, pick);
    }

    private static Object zero(DatumType t) {
        return t == DatumType.INT64 ? (Object) 0L : t == DatumType.NUMERIC ? (Object) BigDecimal.ZERO : (Object) 0.0;
    }

    private static Expr toFloat(Expr e, DatumType t) {
        return t == DatumType.FLOAT64 ? e : Expr.cast(e, DatumType.FLOAT64);
    }

    // ------------------------------------------------------------------ set operations and sorts

    private Translated setOp(SetOp op) {
        List<Translated> inputs = new ArrayList<>();
        for (RelNode r : op.getInputs()) {
            inputs.add(rel(r));
        }
        int arity = inputs.get(0).types().size();
        List<DatumType> types = new ArrayList<>();
        for (int c = 0; c < arity; c++) {
            List<DatumType> col = new ArrayList<>();
            for (Translated t : inputs) {
                col.add(t.types().get(c));
            }
            boolean numbers = col.stream().allMatch(t -> t == DatumType.INT64 || t == DatumType.FLOAT64 || t == DatumType.NUMERIC);
            types.add(numbers && col.contains(DatumType.FLOAT64) ? DatumType.FLOAT64
                    : numbers && col.contains(DatumType.NUMERIC) ? DatumType.NUMERIC : col.get(0));
        }
        List<Plan> plans = new ArrayList<>();
        for (Translated t : inputs) {
            List<Expr> cast = new ArrayList<>();
            for (int c = 0; c < arity; c++) {
                cast.add(coerce(Expr.col(c), t.types().get(c), types.get(c)));
            }
            Plan p = project(t, cast).plan();
            plans.add(op.all ? p : distinct(p, arity));
        }
        Plan result = switch (op) {
            case Union u -> new Plan.Union(plans);
            case Minus m -> {
                Plan acc = plans.get(0);
                for (int i = 1; i < plans.size(); i++) {
                    acc = new Plan.Threshold(new Plan.Union(List.of(acc, new Plan.Negate(plans.get(i)))));
                }
                yield acc;
            }
            case Intersect x -> {
                // min(a, b) = a - max(a - b, 0)
                Plan acc = plans.get(0);
                for (int i = 1; i < plans.size(); i++) {
                    Plan aLessB = new Plan.Threshold(new Plan.Union(List.of(acc, new Plan.Negate(plans.get(i)))));
                    acc = new Plan.Union(List.of(acc, new Plan.Negate(aLessB)));
                }
                yield acc;
            }
            default -> throw SqlException.notSupported(op.getRelTypeName());
        };
        if (!op.all && op instanceof Union) {
            result = distinct(result, arity);
        }
        return new Translated(result, types);
    }

    private static Plan distinct(Plan p, int arity) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < arity; i++) {
            all.add(i);
        }
        return new Plan.Reduce(p, all, List.of());
    }

    /** A sort inside a query: with a limit or offset it is a top-k, without one it does not change the multiset. */
    private Translated sort(Sort sort) {
        Translated in = rel(sort.getInput());
        if (sort.fetch == null && sort.offset == null) {
            return in;
        }
        Long limit = sort.fetch == null ? null : count(sort.fetch, "LIMIT");
        long offset = sort.offset == null ? 0 : count(sort.offset, "OFFSET");
        return new Translated(new Plan.TopK(in.plan(), List.of(), orderings(sort.getCollation()), limit, offset), in.types());
    }

    static List<Plan.Ordering> orderings(RelCollation collation) {
        List<Plan.Ordering> out = new ArrayList<>();
        for (RelFieldCollation f : collation.getFieldCollations()) {
            boolean desc = f.getDirection().isDescending();
            boolean nullsLast = switch (f.nullDirection) {
                case LAST -> true;
                case FIRST -> false;
                default -> !desc;
            };
            out.add(new Plan.Ordering(f.getFieldIndex(), desc, nullsLast));
        }
        return out;
    }

    /** A LIMIT or OFFSET count: a literal or a parameter, not negative. */
    long count(RexNode n, String what) {
        Object v = switch (n) {
            case RexLiteral l -> literalValue(l);
            case RexDynamicParam p -> params.apply(p.getIndex());
            default -> throw SqlException.notSupported(what + " with an expression");
        };
        if (v == null) {
            throw new SqlException(SqlException.INVALID_PARAMETER, what + " must not be NULL");
        }
        long c = ((Number) SqlTypes.convert(v, DatumType.INT64)).longValue();
        if (c < 0) {
            throw new SqlException("2201W", what + " must not be negative");
        }
        return c;
    }

    // ------------------------------------------------------------------ expressions

    Expr rex(RexNode node, List<DatumType> in) {
        return switch (node) {
            case RexInputRef ref -> Expr.col(ref.getIndex());
            case RexLiteral lit -> {
                DatumType t = SqlTypes.of(lit.getType());
                if (t == DatumType.NUMERIC && comparing == 0) {
                    refuseCastLiteral(lit);
                }
                exactLiteral(lit, t);
                yield Expr.lit(t == null ? null : SqlTypes.convert(literalValue(lit), t), t == null ? DatumType.STRING : t);
            }
            case RexDynamicParam p -> {
                Object v = params.apply(p.getIndex());
                SqlTypeName pt = p.getType().getSqlTypeName();
                // a parameter Calcite typed integer or smallint (a literal of the statement's cached plan: 40000::smallint)
                if (v instanceof Long l && (pt == SqlTypeName.INTEGER ? l != l.intValue() : (pt == SqlTypeName.SMALLINT || pt == SqlTypeName.TINYINT) && l != l.shortValue())) {
                    throw new SqlException(SqlException.OUT_OF_RANGE, (pt == SqlTypeName.INTEGER ? "integer" : "smallint") + " out of range");
                }
                yield Expr.lit(v, paramTypes.apply(p.getIndex()));
            }
            case RexOver over -> {
                Integer col = overColumns.get(over.toString());
                if (col == null) {
                    throw SqlException.notSupported("window functions (" + over.getOperator().getName().toLowerCase(Locale.ROOT)
                            + "(...) OVER ...) here (only in a SELECT list)");
                }
                yield Expr.col(col);
            }
            case RexSubQuery sub -> throw SqlException.notSupported("subqueries in expressions (" + switch (sub.getKind()) {
                case IN, SOME, ALL -> "IN, ANY or ALL (SELECT ...)";
                case EXISTS -> "EXISTS (SELECT ...)";
                default -> "a scalar (SELECT ...)";
            } + "; only subqueries in FROM)");
            case RexCall call -> call(call, in);
            default -> throw SqlException.notSupported(node.getKind() == SqlKind.SCALAR_QUERY || node.getKind() == SqlKind.IN
                    || node.getKind() == SqlKind.EXISTS ? "subqueries in expressions (only subqueries in FROM)" : "expression " + node);
        };
    }

    /** How deep in comparisons the translation is: they compare numerics by value, so a literal's scale does not matter there. */
    private int comparing;

    /**
     * Refuses a numeric literal Calcite cast to the common type of its CASE, COALESCE, VALUES or set operation,
     * adding places PostgreSQL would not print (1 beside 2.5 is 1 there, 1.0 here).
     */
    static void refuseCastLiteral(RexLiteral lit) {
        if (castLiteral(lit)) {
            throw SqlException.notSupported("the number " + lit.getValueAs(BigDecimal.class).stripTrailingZeros().toPlainString()
                    + " beside numbers of another scale in one column (CASE, COALESCE, VALUES, UNION): write each with the same"
                    + " number of decimal places");
        }
    }

    /** Whether a numeric literal carries places its own digits did not: Calcite cast it to a wider scale. */
    private static boolean castLiteral(RexLiteral lit) {
        BigDecimal v = lit.getValueAs(BigDecimal.class);
        // a literal as written has Calcite's precision of its digits (0.50: 3)
        return v != null && v.scale() > 0 && v.unscaledValue().mod(java.math.BigInteger.TEN).signum() == 0
                && lit.getType().getPrecision() != Math.max(v.precision(), v.scale() + 1);
    }

    private Expr call(RexCall call, List<DatumType> in) {
        byteaCall(call);
        boolean compares = switch (call.getKind()) {
            case SEARCH, EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL, IS_DISTINCT_FROM,
                    IS_NOT_DISTINCT_FROM -> true;
            default -> false;
        };
        comparing += compares ? 1 : 0;
        try {
            return translateCall(call, in);
        } finally {
            comparing -= compares ? 1 : 0;
        }
    }

    /** Refuses a call of a {@code bytea} but a comparison, a test for NULL, a cast, CASE or coalesce: Tandem has no other bytea operators yet. */
    private static void byteaCall(RexCall call) {
        boolean bytea = isBinary(call.getType()) || call.getOperands().stream().anyMatch(o -> isBinary(o.getType()));
        boolean allowed = switch (call.getKind()) {
            case SEARCH, EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL, IS_DISTINCT_FROM,
                    IS_NOT_DISTINCT_FROM, IS_NULL, IS_NOT_NULL, CAST, CASE, COALESCE -> true;
            default -> false;
        };
        if (bytea && !allowed) {
            throw SqlException.notSupported(call.getOperator().getName().toLowerCase(Locale.ROOT) + " of bytea");
        }
    }

    private static boolean isBinary(org.apache.calcite.rel.type.RelDataType t) {
        return t.getSqlTypeName() == SqlTypeName.BINARY || t.getSqlTypeName() == SqlTypeName.VARBINARY;
    }

    /**
     * {@link #translateUnchecked}, its value held to the range of PostgreSQL's {@code integer} or
     * {@code smallint} where it is arithmetic or a cast that Calcite types so ({@code 2147483647 + 1} and
     * {@code 99999999999::int} are {@code 22003}, as in PostgreSQL): Tandem computes every integer in 64 bits.
     */
    private Expr translateCall(RexCall call, List<DatumType> in) {
        Expr e = translateUnchecked(call, in);
        SqlTypeName type = call.getType().getSqlTypeName();
        // (Calcite types a numeric's MOD by an integer as the integer: only an int64 is held to the range)
        if (type != SqlTypeName.INTEGER && type != SqlTypeName.SMALLINT && type != SqlTypeName.TINYINT || typeOf(e, in) != DatumType.INT64) {
            return e;
        }
        boolean fits = switch (call.getKind()) {
            case PLUS, MINUS, TIMES, DIVIDE, MOD, MINUS_PREFIX -> false;
            // a cast from an integer type as narrow is no change
            case CAST -> narrowerOrSame(call.getOperands().get(0).getType().getSqlTypeName(), type);
            default -> true;
        };
        return fits ? e : Expr.call(type == SqlTypeName.INTEGER ? Func.FIT_INT4 : Func.FIT_INT2, e);
    }

    private static boolean narrowerOrSame(SqlTypeName from, SqlTypeName to) {
        int f = from == SqlTypeName.TINYINT ? 1 : from == SqlTypeName.SMALLINT ? 2 : from == SqlTypeName.INTEGER ? 4 : 8;
        int t = to == SqlTypeName.TINYINT ? 1 : to == SqlTypeName.SMALLINT ? 2 : 4;
        return f <= t || from == SqlTypeName.NULL;
    }

    private Expr translateUnchecked(RexCall call, List<DatumType> in) {
        List<RexNode> ops = call.getOperands();
        SqlKind kind = call.getKind();
        switch (kind) {
            case SEARCH -> {
                return rex(RexUtil.expandSearch(rexBuilder, null, call), in);
            }
            case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUAL, GREATER_THAN, GREATER_THAN_OR_EQUAL -> {
                Func f = switch (kind) {
                    case EQUALS -> Func.EQ;
                    case NOT_EQUALS -> Func.NEQ;
                    case LESS_THAN -> Func.LT;
                    case LESS_THAN_OR_EQUAL -> Func.LTE;
                    case GREATER_THAN -> Func.GT;
                    default -> Func.GTE;
                };
                Expr exact = integerAgainstDecimal(kind, ops, in);
                if (exact != null) {
                    return exact;
                }
                // the datum order is PostgreSQL's float8 order: -0 = 0, NaN = NaN and greatest
                return new Expr.Call(f, unify(args(ops, in), in, call.getOperator().getName()));
            }
            case AND, OR -> {
                return new Expr.Call(kind == SqlKind.AND ? Func.AND : Func.OR, args(ops, in));
            }
            case NOT -> {
                return Expr.call(Func.NOT, rex(ops.get(0), in));
            }
            case IS_NULL -> {
                return Expr.call(Func.IS_NULL, rex(ops.get(0), in));
            }
            case IS_NOT_NULL -> {
                return Expr.call(Func.NOT, Expr.call(Func.IS_NULL, rex(ops.get(0), in)));
            }
            case IS_TRUE, IS_NOT_FALSE -> {
                Expr a = rex(ops.get(0), in);
                return Expr.call(Func.COALESCE, a, Expr.lit(kind == SqlKind.IS_NOT_FALSE, DatumType.BOOL));
            }
            case IS_FALSE, IS_NOT_TRUE -> {
                Expr a = Expr.call(Func.NOT, rex(ops.get(0), in));
                return Expr.call(Func.COALESCE, a, Expr.lit(kind == SqlKind.IS_NOT_TRUE, DatumType.BOOL));
            }
            case IS_DISTINCT_FROM, IS_NOT_DISTINCT_FROM -> {
                List<Expr> ab = unify(args(ops, in), in, kind == SqlKind.IS_DISTINCT_FROM ? "IS DISTINCT FROM" : "IS NOT DISTINCT FROM");
                Expr a = ab.get(0);
                Expr b = ab.get(1);
                Expr same = Expr.call(Func.IF, Expr.call(Func.IS_NULL, a), Expr.call(Func.IS_NULL, b),
                        Expr.call(Func.IF, Expr.call(Func.IS_NULL, b), Expr.lit(false, DatumType.BOOL), Expr.call(Func.EQ, a, b)));
                return kind == SqlKind.IS_NOT_DISTINCT_FROM ? same : Expr.call(Func.NOT, same);
            }
            case PLUS, MINUS, TIMES, DIVIDE, MOD -> {
                Func f = switch (kind) {
                    case PLUS -> Func.ADD;
                    case MINUS -> Func.SUB;
                    case TIMES -> Func.MUL;
                    case DIVIDE -> Func.DIV;
                    default -> Func.MOD;
                };
                List<Expr> operands = args(ops, in);
                Expr datetime = datetimeArith(f, operands, in);
                if (datetime != null) {
                    return datetime;
                }
                List<Expr> args = unify(operands, in, call.getOperator().getName());
                DatumType t = typeOf(args.get(0), in);
                if (t != DatumType.INT64 && t != DatumType.FLOAT64 && t != DatumType.NUMERIC) {
                    throw SqlException.notSupported("arithmetic on " + SqlTypes.pgName(t));
                }
                return new Expr.Call(f, args);
            }
            case MINUS_PREFIX -> {
                return Expr.call(Func.NEG, rex(ops.get(0), in));
            }
            case PLUS_PREFIX -> {
                return rex(ops.get(0), in);
            }
            case CASE -> {
                // WHEN c1 THEN v1 ... ELSE e
                List<Expr> values = new ArrayList<>();
                for (int i = 1; i < ops.size(); i += 2) {
                    values.add(rex(ops.get(i), in));
                }
                values.add(rex(ops.get(ops.size() - 1), in));
                values = unify(values, in, "CASE");
                Expr acc = values.get(values.size() - 1);
                for (int i = ops.size() - 3; i >= 0; i -= 2) {
                    acc = Expr.call(Func.IF, rex(ops.get(i), in), values.get(i / 2), acc);
                }
                return acc;
            }
            case LIKE -> {
                // LIKE, NOT LIKE, ILIKE, NOT ILIKE, with or without ESCAPE
                org.apache.calcite.sql.fun.SqlLikeOperator like = (org.apache.calcite.sql.fun.SqlLikeOperator) call.getOperator();
                List<Expr> args = args(ops, in);
                for (Expr a : args) {
                    if (typeOf(a, in) != DatumType.STRING) {
                        throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(typeOf(args.get(0), in))
                                + (like.isCaseSensitive() ? " ~~ " : " ~~* ") + SqlTypes.pgName(typeOf(args.get(1), in)));
                    }
                }
                Expr match = new Expr.Call(like.isCaseSensitive() ? Func.LIKE : Func.ILIKE, args);
                return like.isNegated() ? Expr.call(Func.NOT, match) : match;
            }
            case COALESCE -> {
                return new Expr.Call(Func.COALESCE, unify(args(ops, in), in, "COALESCE"));
            }
            case NULLIF -> {
                // NULLIF(a, b): NULL when a = b, else a
                List<Expr> ab = unify(args(ops, in), in, "NULLIF");
                Expr a = ab.get(0);
                return Expr.call(Func.IF, Expr.call(Func.EQ, a, ab.get(1)), Expr.lit(null, typeOf(a, in)), a);
            }
            case CAST -> {
                Expr a = rex(ops.get(0), in);
                DatumType to = SqlTypes.of(call.getType());
                if (to == null) {
                    return a;
                }
                SqlTypeName fromSql = ops.get(0).getType().getSqlTypeName();
                DatumType from = typeOf(a, in);
                if (from == DatumType.JSONB && to != DatumType.JSONB && to != DatumType.STRING) {
                    return JsonbFunctions.castFrom(a, call.getType().getSqlTypeName(), to);
                }
                if (to == DatumType.STRING) {
                    return text(a, from);
                }
                if (to == DatumType.INT64 && (fromSql == SqlTypeName.DOUBLE || fromSql == SqlTypeName.FLOAT || fromSql == SqlTypeName.REAL)
                        && typeOf(a, in) == DatumType.FLOAT64) {
                    return roundHalfEven(a);
                }
                return coerce(a, typeOf(a, in), to);
            }
            default -> {
            }
        }
        Expr array = ArrayFunctions.translate(this, call, in);
        if (array != null) {
            return array;
        }
        Expr pg = PgFunctions.translate(this, call, in);
        if (pg != null) {
            return pg;
        }
        String name = call.getOperator().getName().toUpperCase(Locale.ROOT);
        Func f = switch (name) {
            case "||" -> Func.CONCAT;
            case "LOWER" -> Func.LOWER;
            case "UPPER" -> Func.UPPER;
            case "CHAR_LENGTH", "CHARACTER_LENGTH", "LENGTH" -> Func.LENGTH;
            case "SUBSTRING" -> Func.SUBSTR;
            case "ABS" -> Func.ABS;
            case "MOD" -> Func.MOD;
            default -> throw SqlException.notSupported("function " + call.getOperator().getName().toLowerCase(Locale.ROOT));
        };
        List<Expr> args = args(ops, in);
        if (f == Func.MOD) {
            args = unify(args, in, "mod");
        }
        if (f == Func.CONCAT) {
            // text || anynonarray: the other operand as its cast to text writes it
            List<Expr> texts = new ArrayList<>();
            for (Expr a : args) {
                texts.add(text(a, typeOf(a, in)));
            }
            args = texts;
        }
        return new Expr.Call(f, args);
    }

    /** {@code a}, of type {@code from}, as its cast to text writes it (a string as it is). */
    private Expr text(Expr a, DatumType from) {
        if (from == DatumType.STRING) {
            return a;
        }
        if (from == DatumType.FLOAT64 || from == DatumType.TIMESTAMP) {
            // Tandem's cast writes these in its own notation (1.0, 2024-01-02T03:04:05Z), not PostgreSQL's
            throw SqlException.notSupported("casting " + SqlTypes.pgName(from) + " to text");
        }
        return coerce(a, from, DatumType.STRING);
    }

    private static final java.util.Set<DatumType> DATETIMES = java.util.EnumSet.of(DatumType.DATE, DatumType.TIMESTAMP, DatumType.TIMESTAMPTZ,
            DatumType.INTERVAL);

    /**
     * Arithmetic on dates, times and intervals as PostgreSQL types it ({@code date + integer}, {@code date - date},
     * {@code timestamp + interval}, {@code timestamp - timestamp}, {@code interval * number}), a quoted literal taking
     * the type the other side needs; null when neither side is a date or time; 0A000 for an operation
     * Tandem does not compute, 42883 for one PostgreSQL has no operator for.
     */
    private Expr datetimeArith(Func f, List<Expr> operands, List<DatumType> in) {
        if (operands.size() != 2) {
            return null;
        }
        List<Expr> args = new ArrayList<>(operands);
        DatumType a = untyped(args.get(0)) ? null : typeOf(args.get(0), in);
        DatumType b = untyped(args.get(1)) ? null : typeOf(args.get(1), in);
        if (!DATETIMES.contains(a) && !DATETIMES.contains(b)) {
            return null;
        }
        if (a == null) {
            a = b == DatumType.DATE && f == Func.SUB ? DatumType.DATE : DatumType.INT64;
            args.set(0, coerce(args.get(0), DatumType.STRING, a));
        }
        if (b == null) {
            b = a == DatumType.DATE && f == Func.SUB ? DatumType.DATE : DatumType.INT64;
            args.set(1, coerce(args.get(1), DatumType.STRING, b));
        }
        DatumType result = dev.tandem.expr.Datetimes.arithmeticType(f, a, b);
        if (result == null) {
            if (f == Func.SUB && a == b || (f == Func.ADD || f == Func.SUB) && (b == DatumType.INT64 || a == DatumType.INT64)) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(a) + " "
                        + (f == Func.ADD ? "+" : f == Func.SUB ? "-" : f.jsonName()) + " " + SqlTypes.pgName(b));
            }
            throw SqlException.notSupported("the arithmetic " + SqlTypes.pgName(a) + " " + f.jsonName() + " " + SqlTypes.pgName(b));
        }
        return new Expr.Call(f, args);
    }

    private static boolean untyped(Expr e) {
        return e instanceof Expr.Lit l && (l.value() == null || l.type() == DatumType.STRING);
    }

    private static final double TWO_53 = 0x1p53;
    private static final double TWO_63 = 0x1p63;
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    /**
     * An integer compared with a decimal literal, as PostgreSQL compares them: exactly, in {@code numeric}
     * (a double would round an integer beyond 2^53: {@code b = 9007199254740993.0} would match
     * 9007199254740992). A decimal literal's exact value is known, so the comparison becomes one of the
     * integer with an integer bound ({@code b < 2.5} is {@code b < 3}, {@code b = 2.5} is false for
     * every non-NULL b). A literal Calcite made a double ({@code 1e19}: a numeric in PostgreSQL too) was
     * rounded when parsed, so only where a double comparison is exact anyway (beyond 2^53 no bigint's
     * rounding crosses it) does it stay one; between 2^53 and 2^63 it is refused. Null when the
     * comparison is not of an integer with a numeric literal.
     */
    private Expr integerAgainstDecimal(SqlKind kind, List<RexNode> ops, List<DatumType> in) {
        for (int side = 0; side < 2; side++) {
            RexLiteral lit = numericLiteral(ops.get(1 - side));
            if (lit == null) {
                continue;
            }
            RexNode other = ops.get(side);
            while (other instanceof RexCall c && c.getKind() == SqlKind.CAST && isNumeric(c.getType().getSqlTypeName())
                    && isNumeric(c.getOperands().get(0).getType().getSqlTypeName())) {
                // Calcite's implicit widening of the integer to the literal's type (a user cannot write numeric)
                other = c.getOperands().get(0);
            }
            if (!isInteger(other.getType())) {
                continue;
            }
            Expr integer = rex(other, in);
            if (typeOf(integer, in) != DatumType.INT64) {
                continue;
            }
            SqlKind k = side == 0 ? kind : kind.reverse();
            SqlTypeName litType = lit.getType().getSqlTypeName();
            if (litType != SqlTypeName.DECIMAL) {
                double d = lit.getValueAs(Double.class);
                if (Math.abs(d) >= TWO_53 && Math.abs(d) <= TWO_63) {
                    throw SqlException.notSupported("comparing an integer with the double precision " + d + ", between 2^53 and 2^63"
                            + " (a number written with an exponent is a numeric in PostgreSQL, compared exactly; Tandem reads it as a double"
                            + " precision, rounded: write the number without an exponent)");
                }
                return null;
            }
            return integerBound(k, integer, lit.getValueAs(BigDecimal.class));
        }
        return null;
    }

    /** A non-NULL literal of a decimal or double type (possibly under Calcite's cast to another decimal), or null. */
    private static RexLiteral numericLiteral(RexNode e) {
        if (e instanceof RexCall c && c.getKind() == SqlKind.CAST && c.getType().getSqlTypeName() == SqlTypeName.DECIMAL
                && c.getOperands().get(0) instanceof RexLiteral inner && inner.getType().getSqlTypeName() == SqlTypeName.DECIMAL) {
            // an IN list's values cast by Calcite to a common decimal type: the cast would round 1.5 to 2
            e = inner;
        }
        if (!(e instanceof RexLiteral lit) || lit.isNull()) {
            return null;
        }
        SqlTypeName t = lit.getType().getSqlTypeName();
        if (t == SqlTypeName.DECIMAL) {
            // an integer literal bigint holds is an integer, compared as one already
            return SqlTypes.of(lit.getType()) == DatumType.INT64 ? null : lit;
        }
        return t == SqlTypeName.DOUBLE || t == SqlTypeName.FLOAT || t == SqlTypeName.REAL ? lit : null;
    }

    private static boolean isNumeric(SqlTypeName t) {
        return t == SqlTypeName.DECIMAL || t == SqlTypeName.DOUBLE || t == SqlTypeName.FLOAT || t == SqlTypeName.REAL
                || t == SqlTypeName.BIGINT || t == SqlTypeName.INTEGER || t == SqlTypeName.SMALLINT || t == SqlTypeName.TINYINT;
    }

    private static boolean isInteger(org.apache.calcite.rel.type.RelDataType t) {
        return switch (t.getSqlTypeName()) {
            case BIGINT, INTEGER, SMALLINT, TINYINT -> true;
            default -> false;
        };
    }

    /**
     * {@code x k v} for an integer x and an exact decimal v, as a comparison of x with an integer: {@code
     * x < v} is {@code x < ceil(v)}, {@code x <= v} is {@code x <= floor(v)}, {@code x > v} is {@code x >
     * floor(v)}, {@code x >= v} is {@code x >= ceil(v)}, {@code x = v} is {@code x = v} for an integral v
     * and false otherwise ({@code <>} true); a bound beyond bigint's range makes the comparison true or
     * false for every non-NULL x (still NULL for NULL, as {@code x <= MAX} and {@code x > MAX} are).
     */
    private static Expr integerBound(SqlKind k, Expr x, BigDecimal v) {
        BigDecimal floor = v.setScale(0, java.math.RoundingMode.FLOOR);
        BigDecimal ceil = v.setScale(0, java.math.RoundingMode.CEILING);
        Expr always = Expr.call(Func.LTE, x, Expr.lit(Long.MAX_VALUE, DatumType.INT64));
        Expr never = Expr.call(Func.GT, x, Expr.lit(Long.MAX_VALUE, DatumType.INT64));
        boolean integral = floor.compareTo(v) == 0;
        return switch (k) {
            case LESS_THAN -> ceil.compareTo(LONG_MAX) > 0 ? always : ceil.compareTo(LONG_MIN) <= 0 ? never : bound(Func.LT, x, ceil);
            case LESS_THAN_OR_EQUAL -> floor.compareTo(LONG_MAX) >= 0 ? always : floor.compareTo(LONG_MIN) < 0 ? never : bound(Func.LTE, x, floor);
            case GREATER_THAN -> floor.compareTo(LONG_MIN) < 0 ? always : floor.compareTo(LONG_MAX) >= 0 ? never : bound(Func.GT, x, floor);
            case GREATER_THAN_OR_EQUAL -> ceil.compareTo(LONG_MIN) <= 0 ? always : ceil.compareTo(LONG_MAX) > 0 ? never : bound(Func.GTE, x, ceil);
            case EQUALS -> integral && v.compareTo(LONG_MIN) >= 0 && v.compareTo(LONG_MAX) <= 0 ? bound(Func.EQ, x, v) : never;
            case NOT_EQUALS -> integral && v.compareTo(LONG_MIN) >= 0 && v.compareTo(LONG_MAX) <= 0 ? bound(Func.NEQ, x, v) : always;
            default -> throw new IllegalArgumentException("not a comparison: " + k);
        };
    }

    private static Expr bound(Func f, Expr x, BigDecimal v) {
        return Expr.call(f, x, Expr.lit(v.longValueExact(), DatumType.INT64));
    }

    private List<Expr> args(List<RexNode> ops, List<DatumType> in) {
        List<Expr> out = new ArrayList<>();
        for (RexNode o : ops) {
            out.add(rex(o, in));
        }
        return out;
    }

    /**
     * A double's conversion to bigint as PostgreSQL's {@code rint}: to the nearest integer, ties to the
     * even one ({@code 2.5} → 2, {@code -2.5} → -2). Tandem's cast rounds ties away from zero; a tie
     * that landed on an odd integer is moved one back towards zero.
     */
    private static Expr roundHalfEven(Expr x) {
        Expr r = Expr.cast(x, DatumType.INT64);
        Expr diff = Expr.call(Func.SUB, x, Expr.cast(r, DatumType.FLOAT64));
        Expr odd = Expr.call(Func.NEQ, Expr.call(Func.MOD, r, Expr.lit(2L, DatumType.INT64)), Expr.lit(0L, DatumType.INT64));
        Expr one = Expr.lit(1L, DatumType.INT64);
        return Expr.call(Func.IF, Expr.call(Func.AND, Expr.call(Func.EQ, diff, Expr.lit(-0.5, DatumType.FLOAT64)), odd),
                Expr.call(Func.SUB, r, one),
                Expr.call(Func.IF, Expr.call(Func.AND, Expr.call(Func.EQ, diff, Expr.lit(0.5, DatumType.FLOAT64)), odd),
                        Expr.call(Func.ADD, r, one), r));
    }

    /**
     * The arguments of {@code op} brought to one type, as PostgreSQL resolves them: a quoted literal
     * (and NULL) has no type of its own and takes the others' (parsed as that type); int64 and numeric
     * meet at numeric, either with float64 at float64; any other mix is refused ({@code text = bigint}: 42883, {@code CASE}/{@code
     * COALESCE} branches: 42804), never compared as some common type.
     */
    static List<Expr> unify(List<Expr> args, List<DatumType> in, String op) {
        DatumType target = null;
        boolean numeric = true;
        boolean anyFloat = false;
        boolean anyNumeric = false;
        boolean mixed = false;
        for (Expr a : args) {
            if (a instanceof Expr.Lit l && (l.value() == null || l.type() == DatumType.STRING)) {
                continue;
            }
            DatumType t = typeOf(a, in);
            mixed |= target != null && t != target;
            target = target == null ? t : target;
            numeric &= t == DatumType.INT64 || t == DatumType.FLOAT64 || t == DatumType.NUMERIC;
            anyFloat |= t == DatumType.FLOAT64;
            anyNumeric |= t == DatumType.NUMERIC;
        }
        if (mixed && !numeric) {
            List<String> names = args.stream().filter(a -> !(a instanceof Expr.Lit l && (l.value() == null || l.type() == DatumType.STRING)))
                    .map(a -> SqlTypes.pgName(typeOf(a, in))).distinct().toList();
            if (op.chars().allMatch(c -> !Character.isLetter(c)) && args.size() == 2) {
                throw new SqlException(SqlException.UNDEFINED_FUNCTION, "operator does not exist: " + SqlTypes.pgName(typeOf(args.get(0), in))
                        + " " + op + " " + SqlTypes.pgName(typeOf(args.get(1), in)));
            }
            throw new SqlException(SqlException.DATATYPE_MISMATCH, op + " types " + String.join(" and ", names) + " cannot be matched");
        }
        if (target == null) {
            for (Expr a : args) {
                if (!(a instanceof Expr.Lit l && l.value() == null)) {
                    target = typeOf(a, in);
                    break;
                }
            }
            if (target == null) {
                target = typeOf(args.get(0), in);
            }
        }
        if (numeric && anyFloat) {
            target = DatumType.FLOAT64;
        } else if (numeric && anyNumeric) {
            target = DatumType.NUMERIC;
        }
        List<Expr> out = new ArrayList<>();
        for (Expr a : args) {
            out.add(coerce(a, typeOf(a, in), target));
        }
        return out;
    }

    private static Expr coerce(Expr e, DatumType from, DatumType to) {
        if (from == to) {
            return e;
        }
        if (e instanceof Expr.Lit l && l.value() == null) {
            return Expr.lit(null, to);
        }
        if (e instanceof Expr.Lit l && (from == DatumType.NUMERIC || from == DatumType.INT64)
                && (to == DatumType.FLOAT64 || to == DatumType.NUMERIC)) {
            // a number literal taking a wider type is that type's literal (0.0 compared with a double is the double 0)
            return Expr.lit(SqlTypes.convert(l.value(), to), to);
        }
        if (e instanceof Expr.Lit l && from == DatumType.STRING) {
            // a quoted literal takes the type it is used as, parsed as PostgreSQL parses it ('2024-01-02 03:04:05')
            return Expr.lit(SqlTypes.convert(l.value(), to), to);
        }
        return Expr.cast(e, to);
    }

    static DatumType typeOf(Expr e, List<DatumType> in) {
        try {
            return e.typeOf(in);
        } catch (ExprException x) {
            throw new SqlException(SqlException.DATATYPE_MISMATCH, x.getMessage());
        }
    }

    /** The value of a literal as Java sees it: Long, BigDecimal, Double, String, Boolean, Timestamp or null. */
    static Object literalValue(RexLiteral lit) {
        if (lit.isNull()) {
            return null;
        }
        SqlTypeName t = lit.getType().getSqlTypeName();
        return switch (t) {
            case BOOLEAN -> lit.getValueAs(Boolean.class);
            case TINYINT, SMALLINT, INTEGER -> {
                // a constant Calcite folded into a literal of its type (99999::smallint, length('abc') * 1000000000)
                long v = lit.getValueAs(Long.class);
                if (t == SqlTypeName.INTEGER ? v != (int) v : v != (short) v) {
                    throw new SqlException(SqlException.OUT_OF_RANGE, (t == SqlTypeName.INTEGER ? "integer" : "smallint") + " out of range");
                }
                yield v;
            }
            case BIGINT -> lit.getValueAs(Long.class);
            case DECIMAL -> lit.getValueAs(BigDecimal.class);
            case FLOAT, REAL, DOUBLE -> lit.getValueAs(Double.class);
            case CHAR, VARCHAR -> lit.getValueAs(String.class);
            case TIMESTAMP -> SqlTypes.parseTimestamp(lit.getValueAs(TimestampString.class).toString());
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> new dev.tandem.row.TimestampTz(
                    SqlTypes.parseTimestamp(lit.getValueAs(TimestampString.class).toString()).micros());
            case DATE -> java.time.LocalDate.parse(lit.getValueAs(org.apache.calcite.util.DateString.class).toString());
            case UUID -> lit.getValueAs(java.util.UUID.class);
            case BINARY, VARBINARY -> new dev.tandem.row.Bytea(lit.getValueAs(org.apache.calcite.avatica.util.ByteString.class).getBytes());
            case INTERVAL_YEAR, INTERVAL_YEAR_MONTH, INTERVAL_MONTH -> new dev.tandem.row.Interval(lit.getValueAs(BigDecimal.class).intValueExact(), 0, 0);
            case INTERVAL_DAY, INTERVAL_DAY_HOUR, INTERVAL_DAY_MINUTE, INTERVAL_DAY_SECOND, INTERVAL_HOUR, INTERVAL_HOUR_MINUTE, INTERVAL_HOUR_SECOND,
                    INTERVAL_MINUTE, INTERVAL_MINUTE_SECOND, INTERVAL_SECOND -> {
                long micros = lit.getValueAs(BigDecimal.class).movePointRight(3).longValueExact();
                yield new dev.tandem.row.Interval(0, (int) (micros / dev.tandem.row.Interval.MICROS_PER_DAY), micros % dev.tandem.row.Interval.MICROS_PER_DAY);
            }
            default -> throw SqlException.notSupported("a literal of type " + t.getName().toLowerCase(Locale.ROOT));
        };
    }

    // ------------------------------------------------------------------ helpers

    static List<DatumType> typesOf(RelNode rel) {
        List<DatumType> out = new ArrayList<>();
        for (RelDataTypeField f : rel.getRowType().getFieldList()) {
            DatumType t = SqlTypes.of(f.getType());
            out.add(t == null ? DatumType.STRING : t);
        }
        return out;
    }

    private static List<DatumType> concat(List<DatumType> a, List<DatumType> b) {
        List<DatumType> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    static List<Expr> conjuncts(Expr e) {
        if (e instanceof Expr.Call c && c.func() == Func.AND) {
            List<Expr> out = new ArrayList<>();
            for (Expr a : c.args()) {
                out.addAll(conjuncts(a));
            }
            return out;
        }
        if (e instanceof Expr.Lit l && Boolean.TRUE.equals(l.value())) {
            return List.of();
        }
        return List.of(e);
    }

    private static int minColumn(Expr e) {
        return switch (e) {
            case Expr.Col c -> c.index();
            case Expr.Lit l -> Integer.MAX_VALUE;
            case Expr.Call c -> c.args().stream().mapToInt(RelTranslator::minColumn).min().orElse(Integer.MAX_VALUE);
        };
    }

    static Expr shift(Expr e, java.util.function.IntUnaryOperator map) {
        return switch (e) {
            case Expr.Col c -> Expr.col(map.applyAsInt(c.index()));
            case Expr.Lit l -> l;
            case Expr.Call c -> new Expr.Call(c.func(), c.args().stream().map(a -> shift(a, map)).toList(), c.type());
        };
    }

    @SuppressWarnings("unused")
    private static String describe(Object[] row) {
        return Arrays.toString(row);
    }
}
