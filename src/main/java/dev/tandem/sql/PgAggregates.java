package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import java.util.List;
import org.apache.calcite.sql.SqlKind;

/**
 * PostgreSQL's aggregates that Tandem computes from the reduce's own ({@code count sum min max}), so a
 * view using them is maintained under retractions as those are: {@code bool_and}/{@code every} and
 * {@code bool_or} are the min and max of the values as 0 and 1; {@code var_pop var_samp variance stddev_pop
 * stddev_samp stddev} come from the count, the sum and the sum of squares of the values ({@code (Σx² −
 * (Σx)²/n) / n} or {@code / (n − 1)} in double precision, never below zero). Of a bigint the sums are
 * exact bigint sums, maintained by adding and retracting (a square or a sum beyond bigint's range is an
 * overflow error, where PostgreSQL computes in numeric); of a double precision they are double sums,
 * which a reduce recomputes per changed group, as it does {@code sum} and {@code avg} of doubles. The
 * result is PostgreSQL's to double precision's rounding where {@code Σx²} and {@code (Σx)²/n} are not
 * close; where they are (a spread tiny beside the mean) the subtraction loses precision that
 * PostgreSQL's algorithms keep.
 */
final class PgAggregates {

    private PgAggregates() {
    }

    private static Expr float64(Expr e, DatumType t) {
        return t == DatumType.FLOAT64 ? e : Expr.cast(e, DatumType.FLOAT64);
    }

    /**
     * Adds {@code string_agg(arg, separator [ORDER BY arg])}: the values, each after the separator, concatenated
     * in ascending order by the reduce's {@code string_agg}, then the first separator cut off. PostgreSQL
     * orders by the {@code ORDER BY} or else by however it read the rows (any order is its answer), so
     * ordering by anything but the value itself ascending, a separator that is not a constant, and
     * {@code DISTINCT} are refused.
     */
    static void stringAgg(org.apache.calcite.rel.core.AggregateCall call, Expr separator, Expr arg, DatumType argType, int at,
            List<Plan.Aggregate> aggs, List<Expr> finals, List<DatumType> types, List<Object> defaults) {
        if (argType != DatumType.STRING) {
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function string_agg(" + SqlTypes.pgName(argType) + ", text) does not exist");
        }
        if (call.isDistinct()) {
            throw SqlException.notSupported("string_agg(DISTINCT ...)");
        }
        if (!(separator instanceof Expr.Lit l && l.value() instanceof String)) {
            throw SqlException.notSupported("string_agg with a separator that is not a constant string");
        }
        List<org.apache.calcite.rel.RelFieldCollation> order = call.getCollation().getFieldCollations();
        if (order.size() > 1 || order.size() == 1 && (order.get(0).getFieldIndex() != call.getArgList().get(0)
                || order.get(0).getDirection() != org.apache.calcite.rel.RelFieldCollation.Direction.ASCENDING)) {
            throw SqlException.notSupported("string_agg ordered by anything but its value, ascending");
        }
        String sep = (String) ((Expr.Lit) separator).value();
        aggs.add(new Plan.Aggregate(AggregateFunc.STRING_AGG, Expr.call(Func.CONCAT, separator, arg)));
        finals.add(Expr.call(Func.SUBSTR, Expr.col(at), Expr.lit((long) sep.codePointCount(0, sep.length()) + 1, DatumType.INT64)));
        types.add(DatumType.STRING);
        defaults.add(null);
    }

    /**
     * Adds {@code array_agg(arg [ORDER BY arg [ASC | DESC]])}: the values, NULLs included, in the reduce's {@code array_agg}
     * order, ascending with NULLs last or descending with NULLs first, as PostgreSQL sorts by the {@code ORDER BY}.
     * Without {@code ORDER BY} PostgreSQL answers in whatever order it read the rows (any order is its answer) and
     * Tandem answers ascending; with {@code DISTINCT} PostgreSQL sorts the values ascending, as Tandem does. Refused:
     * ordering by anything but the value itself or with the other NULLs placement, a {@code FILTER} (which the
     * reduce's NULL arguments cannot express, since array_agg keeps NULLs), arguments whose PostgreSQL array type
     * Tandem lacks (arrays of intervals, jsonb, bytea, arrays), and {@code DISTINCT} of numerics and doubles (PostgreSQL's distinct {@code 1.5} and {@code 1.50}
     * are one value, Tandem's two).
     */
    static void arrayAgg(org.apache.calcite.rel.core.AggregateCall call, org.apache.calcite.rel.type.RelDataType input, Expr arg,
            DatumType argType, int at, List<Plan.Aggregate> aggs, List<Expr> finals, List<DatumType> types, List<Object> defaults) {
        if (call.getArgList().size() != 1) {
            throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function array_agg of " + call.getArgList().size() + " arguments does not exist");
        }
        if (call.filterArg >= 0) {
            throw SqlException.notSupported("array_agg(...) FILTER (WHERE ...)");
        }
        DatumType array = DatumType.arrayOf(argType);
        if (array == null) {
            throw SqlException.notSupported("array_agg of " + SqlTypes.pgName(argType) + (argType.isArray() ? " (multidimensional arrays)" : ""));
        }
        if (call.isDistinct() && (argType == DatumType.NUMERIC || argType == DatumType.FLOAT64)) {
            throw SqlException.notSupported("array_agg(DISTINCT ...) of " + SqlTypes.pgName(argType));
        }
        List<org.apache.calcite.rel.RelFieldCollation> order = call.getCollation().getFieldCollations();
        boolean descending = false;
        if (order.size() > 1) {
            throw SqlException.notSupported("array_agg ordered by anything but its value");
        }
        if (order.size() == 1) {
            org.apache.calcite.rel.RelFieldCollation o = order.get(0);
            descending = o.getDirection() == org.apache.calcite.rel.RelFieldCollation.Direction.DESCENDING;
            org.apache.calcite.rel.RelFieldCollation.NullDirection nulls = o.nullDirection;
            boolean defaultNulls = nulls == org.apache.calcite.rel.RelFieldCollation.NullDirection.UNSPECIFIED
                    || nulls == (descending ? org.apache.calcite.rel.RelFieldCollation.NullDirection.FIRST
                            : org.apache.calcite.rel.RelFieldCollation.NullDirection.LAST);
            if (o.getFieldIndex() != call.getArgList().get(0)) {
                throw SqlException.notSupported("array_agg ordered by anything but its value");
            }
            if (!descending && o.getDirection() != org.apache.calcite.rel.RelFieldCollation.Direction.ASCENDING || !defaultNulls) {
                throw SqlException.notSupported("array_agg ordered by its value but with NULLS " + (descending ? "LAST" : "FIRST"));
            }
        }
        aggs.add(new Plan.Aggregate(descending ? AggregateFunc.ARRAY_AGG_DESC : AggregateFunc.ARRAY_AGG, arg));
        finals.add(Expr.col(at));
        types.add(array);
        defaults.add(null);
    }

    /** Whether {@code name} (of Calcite's {@code kind}) is one of these aggregates. */
    static boolean isOwn(String name, SqlKind kind) {
        return switch (name) {
            case "bool_and", "bool_or", "every" -> true;
            default -> kind == SqlKind.STDDEV_POP || kind == SqlKind.STDDEV_SAMP || kind == SqlKind.VAR_POP || kind == SqlKind.VAR_SAMP;
        };
    }

    /**
     * Adds the reduce's aggregates of {@code name} over {@code arg} (its first at reduce column {@code at})
     * and the final expression over them, its type and its value over no rows.
     */
    static void add(String name, Expr arg, DatumType argType, int at, List<Plan.Aggregate> aggs, List<Expr> finals, List<DatumType> types,
            List<Object> defaults) {
        switch (name) {
            case "bool_and", "bool_or", "every" -> {
                if (argType != DatumType.BOOL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name + "(" + SqlTypes.pgName(argType) + ") does not exist");
                }
                aggs.add(new Plan.Aggregate(name.equals("bool_or") ? AggregateFunc.MAX : AggregateFunc.MIN, Expr.cast(arg, DatumType.INT64)));
                finals.add(Expr.cast(Expr.col(at), DatumType.BOOL));
                types.add(DatumType.BOOL);
                defaults.add(null);
            }
            default -> {
                if (argType != DatumType.INT64 && argType != DatumType.FLOAT64) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name + "(" + SqlTypes.pgName(argType) + ") does not exist");
                }
                aggs.add(new Plan.Aggregate(AggregateFunc.SUM, arg));
                aggs.add(new Plan.Aggregate(AggregateFunc.SUM, Expr.call(Func.MUL, arg, arg)));
                aggs.add(new Plan.Aggregate(AggregateFunc.COUNT, arg));
                Expr sum = float64(Expr.col(at), argType);
                Expr squares = float64(Expr.col(at + 1), argType);
                Expr count = Expr.col(at + 2);
                Expr n = Expr.cast(count, DatumType.FLOAT64);
                Expr spread = Expr.call(Func.SUB, squares, Expr.call(Func.DIV, Expr.call(Func.MUL, sum, sum), n));
                Expr zero = Expr.lit(0.0, DatumType.FLOAT64);
                spread = Expr.call(Func.IF, Expr.call(Func.LT, spread, zero), zero, spread);
                boolean sample = !name.endsWith("_pop");
                Expr variance = Expr.call(Func.IF, Expr.call(Func.GT, count, Expr.lit(sample ? 1L : 0L, DatumType.INT64)),
                        Expr.call(Func.DIV, spread, sample ? Expr.call(Func.SUB, n, Expr.lit(1.0, DatumType.FLOAT64)) : n),
                        Expr.lit(null, DatumType.FLOAT64));
                finals.add(name.startsWith("stddev") ? Expr.call(Func.SQRT, variance) : variance);
                types.add(DatumType.FLOAT64);
                defaults.add(null);
            }
        }
    }
}
