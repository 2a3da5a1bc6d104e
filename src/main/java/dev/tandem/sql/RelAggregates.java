package dev.tandem.sql;

import static dev.tandem.sql.PgCoercion.typeOf;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.sql.RelTranslator.Translated;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * The translation of an aggregate into Tandem's reduce: {@code avg} is {@code sum/count}, {@code DISTINCT} a reduce of
 * the distinct values, {@code GROUPING SETS} the union of an aggregate per set, and an aggregate without
 * {@code GROUP BY} answers one row over an empty input too (the default row, added when the reduce has none).
 */
final class RelAggregates {

    private RelAggregates() {
    }

    /** {@code agg} over its translated input {@code in}. */
    static Translated aggregate(Aggregate agg, Translated in, RexTranslator rex) {
        if (agg.getGroupType() == Aggregate.Group.SIMPLE) {
            return aggregate(agg, in, agg.getGroupSet().asList(), rex);
        }
        // GROUPING SETS, ROLLUP, CUBE: the union of the aggregate by each set, NULL in the columns a set does not group by
        List<Integer> all = agg.getGroupSet().asList();
        List<Plan> parts = new ArrayList<>();
        List<DatumType> types = null;
        for (ImmutableBitSet set : agg.getGroupSets()) {
            List<Integer> key = set.asList();
            Translated part = aggregate(agg, in, key, rex);
            List<Expr> cols = new ArrayList<>();
            for (int k : all) {
                int at = key.indexOf(k);
                cols.add(at >= 0 ? Expr.col(at) : Expr.lit(null, in.types().get(k)));
            }
            for (int i = key.size(); i < part.types().size(); i++) {
                cols.add(Expr.col(i));
            }
            Translated padded = part.project(cols);
            types = padded.types();
            parts.add(padded.plan());
        }
        return new Translated(parts.size() == 1 ? parts.get(0) : new Plan.Union(parts), types);
    }

    /**
     * What a reduce computes and what is made of it: its aggregates; per output column, its final expression over the
     * reduce's row, its type, and its value over no rows.
     */
    private record Outputs(List<Plan.Aggregate> aggs, List<Expr> finals, List<DatumType> types, List<Object> defaults) {
    }

    /** The aggregate's calls over {@code in} grouped by {@code key}: the key's columns, then the calls'. */
    private static Translated aggregate(Aggregate agg, Translated in, List<Integer> key, RexTranslator rex) {
        Outputs out = new Outputs(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int k : key) {
            out.types().add(in.types().get(k));
        }
        int n = key.size();
        // the final columns, over the reduce's output (avg and sum0 need a step after the reduce)
        for (int i = 0; i < n; i++) {
            out.finals().add(Expr.col(i));
        }
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
            boolean arrayAgg = call.getAggregation().getKind() == SqlKind.ARRAY_AGG;
            if (arrayAgg) {
                PgAggregates.arrayAgg(call, agg.getInput().getRowType(), arg, argType, n + out.aggs().size(), out.aggs(), out.finals(), out.types(),
                        out.defaults());
            }
            if (call.filterArg >= 0) {
                // FILTER (WHERE f): a row f does not keep (false or NULL) is a NULL argument, which every aggregate skips
                arg = Expr.call(Func.IF, Expr.col(call.filterArg), arg == null ? Expr.lit(true, DatumType.BOOL) : arg,
                        Expr.lit(null, arg == null ? DatumType.BOOL : argType));
            }
            SqlKind kind = call.getAggregation().getKind();
            String aggName = call.getAggregation().getName().toLowerCase(Locale.ROOT);
            int at = n + out.aggs().size();
            // min and max of the distinct values are those of all values
            int distinct = call.isDistinct() && arg != null && kind != SqlKind.MIN && kind != SqlKind.MAX
                    ? arg instanceof Expr.Col c ? c.index() : in.types().size() + extra.size() : -1;
            if (distinct >= in.types().size()) {
                extra.add(arg);
            }
            if (arrayAgg) {
                pad(distinctOf, out.aggs().size(), distinct);
                continue;
            }
            if (stringAgg) {
                Expr separator = agg.getInput() instanceof Project p
                        ? rex.rex(p.getProjects().get(call.getArgList().get(1)), RelTranslator.typesOf(p.getInput())) : null;
                PgAggregates.stringAgg(call, separator, arg, argType, at, out.aggs(), out.finals(), out.types(), out.defaults());
                pad(distinctOf, out.aggs().size(), -1);
                continue;
            }
            if (PgAggregates.isOwn(aggName, kind)) {
                if (call.isDistinct() && !aggName.startsWith("bool") && !aggName.equals("every")) {
                    throw SqlException.notSupported(aggName + "(DISTINCT ...)");
                }
                PgAggregates.add(aggName, arg, argType, at, out.aggs(), out.finals(), out.types(), out.defaults());
                pad(distinctOf, out.aggs().size(), -1);
                continue;
            }
            standard(call, arg, argType, at, in.types(), rex, out);
            pad(distinctOf, out.aggs().size(), distinct);
        }
        if (!extra.isEmpty()) {
            List<Expr> cols = new ArrayList<>();
            for (int i = 0; i < in.types().size(); i++) {
                cols.add(Expr.col(i));
            }
            cols.addAll(extra);
            in = in.project(cols);
        }
        List<DatumType> reduceTypes = new ArrayList<>(out.types().subList(0, n));
        for (Plan.Aggregate a : out.aggs()) {
            DatumType t = a.func() == AggregateFunc.COUNT ? DatumType.INT64 : typeOf(a.expr(), in.types());
            reduceTypes.add(a.func().isArrayAgg() ? DatumType.arrayOf(t) : t);
        }
        Plan reduce = distinctOf.stream().allMatch(d -> d < 0) ? new Plan.Reduce(in.plan(), key, out.aggs())
                : reduceDistinct(in, key, out.aggs(), distinctOf, reduceTypes);
        Translated reduced = new Translated(reduce, reduceTypes).project(out.finals());
        return key.isEmpty() ? withDefaultRow(reduced, out.defaults()) : reduced;
    }

    private static void pad(List<Integer> distinctOf, int size, int value) {
        while (distinctOf.size() < size) {
            distinctOf.add(value);
        }
    }

    /** SQL's own aggregate {@code call} of {@code arg}, its first aggregate at column {@code at} of the reduce's row. */
    private static void standard(AggregateCall call, Expr arg, DatumType argType, int at, List<DatumType> in, RexTranslator rex, Outputs out) {
        SqlKind kind = call.getAggregation().getKind();
        switch (kind) {
            case COUNT -> {
                out.aggs().add(new Plan.Aggregate(AggregateFunc.COUNT, arg));
                out.finals().add(Expr.col(at));
                out.types().add(DatumType.INT64);
                out.defaults().add(0L);
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
                out.aggs().add(new Plan.Aggregate(f, arg));
                out.finals().add(kind == SqlKind.SUM0
                        ? Expr.call(Func.COALESCE, Expr.col(at), Expr.lit(zero(argType), argType))
                        : Expr.col(at));
                out.types().add(argType);
                out.defaults().add(kind == SqlKind.SUM0 ? zero(argType) : null);
            }
            case AVG -> {
                if (argType != DatumType.INT64 && argType != DatumType.FLOAT64 && argType != DatumType.NUMERIC) {
                    throw SqlException.notSupported("avg of " + SqlTypes.pgName(argType));
                }
                out.aggs().add(new Plan.Aggregate(AggregateFunc.SUM, arg));
                out.aggs().add(new Plan.Aggregate(AggregateFunc.COUNT, arg));
                // PostgreSQL's avg of an integer or numeric is the numeric quotient of the sum by the count
                DatumType avg = argType == DatumType.FLOAT64 ? DatumType.FLOAT64 : DatumType.NUMERIC;
                Expr sum = argType == avg ? Expr.col(at) : Expr.cast(Expr.col(at), avg);
                out.finals().add(Expr.call(Func.DIV, sum, Expr.cast(Expr.col(at + 1), avg)));
                out.types().add(avg);
                out.defaults().add(null);
            }
            case LITERAL_AGG -> {
                // the same literal for every group (Calcite's mark that a group exists)
                Expr lit = rex.rex(call.rexList.get(0), in);
                out.aggs().add(new Plan.Aggregate(AggregateFunc.COUNT, null));
                out.finals().add(lit);
                out.types().add(typeOf(lit, in));
                out.defaults().add(null);
            }
            case SINGLE_VALUE -> {
                // a scalar subquery's value: its one row's, NULL for none, PostgreSQL's error 21000 for several
                out.aggs().add(new Plan.Aggregate(AggregateFunc.COUNT, null));
                out.aggs().add(new Plan.Aggregate(AggregateFunc.MAX, arg));
                out.finals().add(Expr.call(Func.IF, Expr.call(Func.GT, Expr.col(at), Expr.lit(1L, DatumType.INT64)),
                        new Expr.Call(Func.ERROR, List.of(Expr.lit(RelTranslator.TWO_ROWS, DatumType.STRING)), argType), Expr.col(at + 1)));
                out.types().add(argType);
                out.defaults().add(null);
            }
            default -> throw SqlException.notSupported("aggregate function " + call.getAggregation().getName().toLowerCase(Locale.ROOT));
        }
    }

    /**
     * {@code out}, the aggregate of a query without {@code GROUP BY}, which answers one row even over no rows: with the row
     * of {@code defaults} added when the reduce has none.
     */
    private static Translated withDefaultRow(Translated out, List<Object> defaults) {
        Plan defaultRow = new Plan.Constant(List.of(Row.pack(out.types(), defaults)), out.types());
        List<Expr> asDefault = new ArrayList<>();
        for (int i = 0; i < defaults.size(); i++) {
            asDefault.add(Expr.lit(defaults.get(i), out.types().get(i)));
        }
        Plan present = out.project(asDefault).plan();
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
}
