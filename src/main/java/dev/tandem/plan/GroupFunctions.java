package dev.tandem.plan;

import dev.tandem.expr.DataError;
import dev.tandem.expr.Datums;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowPacker;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one group of a {@code reduce} or {@code top_k} outputs, given its member rows and their
 * multiplicities in row order. Shared by the reference evaluator and the rendered operators so both
 * compute groups identically (semantics in {@link PlanEvaluator}).
 */
public final class GroupFunctions {

    /** The error of a reduce group holding a row of negative multiplicity. */
    public static final DataError NEGATIVE_REDUCE = new DataError(PlanEvaluator.NEGATIVE_REDUCE, EvalError.Code.DATA_EXCEPTION);
    /** The error of a reduce group whose int64 sum is out of range. */
    public static final DataError SUM_OVERFLOW = new DataError(PlanEvaluator.SUM_OVERFLOW, EvalError.Code.NUMERIC_OUT_OF_RANGE);
    /** The error of a top-k group holding a row of negative multiplicity. */
    public static final DataError NEGATIVE_TOP_K = new DataError(PlanEvaluator.NEGATIVE_TOP_K, EvalError.Code.DATA_EXCEPTION);

    /** One member row of a group with its multiplicity. */
    public record Member(Row row, long mult) {
    }

    /** A group's output: rows with multiplicities, or a single error. */
    public record Output(Map<Row, Long> rows, DataError error) {
        public static final Output EMPTY = new Output(Map.of(), null);
    }

    private GroupFunctions() {
    }

    /**
     * The output of a reduce group. Members must be in row order and have aggregate arguments that
     * evaluate without error. {@code outTypes} are the reduce's output types.
     */
    public static Output reduce(Plan.Reduce r, List<DatumType> outTypes, Row key, List<Member> members) {
        if (members.isEmpty()) {
            return Output.EMPTY;
        }
        for (Member m : members) {
            if (m.mult() < 0) {
                return new Output(Map.of(), NEGATIVE_REDUCE);
            }
        }
        int keyArity = r.groupKey().size();
        List<Object[]> args = new ArrayList<>(members.size());
        for (Member m : members) {
            Object[] values = null;
            Object[] a = new Object[r.aggregates().size()];
            for (int i = 0; i < a.length; i++) {
                Expr ex = r.aggregates().get(i).expr();
                if (ex != null && values == null) {
                    values = m.row().unpack();
                }
                a[i] = ex == null ? Boolean.TRUE : ex.eval(values);
            }
            args.add(a);
        }
        RowPacker out = new RowPacker();
        Object[] keyValues = key.unpack();
        for (int k = 0; k < keyArity; k++) {
            out.push(outTypes.get(k), keyValues[k]);
        }
        for (int a = 0; a < r.aggregates().size(); a++) {
            DatumType type = outTypes.get(keyArity + a);
            Object value = aggregate(r.aggregates().get(a).func(), a, type, members, args);
            if (value == PlanEvaluator.SUM_OVERFLOW) {
                return new Output(Map.of(), SUM_OVERFLOW);
            }
            out.push(type, value);
        }
        return new Output(Map.of(out.finish(), 1L), null);
    }

    private static Object aggregate(AggregateFunc func, int a, DatumType type, List<Member> members, List<Object[]> args) {
        switch (func) {
            case COUNT -> {
                long n = 0;
                for (int i = 0; i < members.size(); i++) {
                    if (args.get(i)[a] != null) {
                        n += members.get(i).mult();
                    }
                }
                return n;
            }
            case SUM -> {
                boolean any = false;
                long exact = 0;
                BigInteger wide = null;
                double approx = 0.0;
                java.math.BigDecimal decimal = java.math.BigDecimal.ZERO;
                for (int i = 0; i < members.size(); i++) {
                    Object v = args.get(i)[a];
                    if (v == null) {
                        continue;
                    }
                    any = true;
                    long mult = members.get(i).mult();
                    if (v instanceof Long l) {
                        // Exact in a long while it fits; an intermediate overflow continues in BigInteger,
                        // since only the final sum decides.
                        if (wide == null) {
                            try {
                                exact = Math.addExact(exact, Math.multiplyExact(l, mult));
                                continue;
                            } catch (ArithmeticException overflow) {
                                wide = BigInteger.valueOf(exact);
                            }
                        }
                        wide = wide.add(BigInteger.valueOf(l).multiply(BigInteger.valueOf(mult)));
                    } else if (v instanceof java.math.BigDecimal d) {
                        decimal = decimal.add(d.multiply(java.math.BigDecimal.valueOf(mult)));
                    } else {
                        approx += (Double) v * mult;
                    }
                }
                if (!any) {
                    return null;
                }
                if (type == DatumType.FLOAT64) {
                    return approx;
                }
                if (type == DatumType.NUMERIC) {
                    return decimal;
                }
                if (wide == null) {
                    return exact;
                }
                return wide.bitLength() < 64 ? (Object) wide.longValue() : PlanEvaluator.SUM_OVERFLOW;
            }
            case MIN, MAX -> {
                Object best = null;
                for (Object[] arg : args) {
                    Object v = arg[a];
                    if (v != null && (best == null || (func == AggregateFunc.MIN ? Datums.compare(v, best) < 0 : Datums.compare(v, best) > 0))) {
                        best = v;
                    }
                }
                return best;
            }
            case STRING_AGG -> {
                List<Object[]> values = new ArrayList<>();
                for (int i = 0; i < members.size(); i++) {
                    if (args.get(i)[a] != null) {
                        values.add(new Object[] {args.get(i)[a], members.get(i).mult()});
                    }
                }
                if (values.isEmpty()) {
                    return null;
                }
                values.sort((x, y) -> Datums.compare(x[0], y[0]));
                StringBuilder b = new StringBuilder();
                for (Object[] v : values) {
                    for (long m = (Long) v[1]; m > 0; m--) {
                        b.append((String) v[0]);
                    }
                }
                return b.toString();
            }
            case ARRAY_AGG, ARRAY_AGG_DESC -> {
                // a stable sort of the members (in row order) by their values keeps equal values in row order
                List<Integer> order = new ArrayList<>(members.size());
                for (int i = 0; i < members.size(); i++) {
                    order.add(i);
                }
                Comparator<Object> values = func == AggregateFunc.ARRAY_AGG ? Datums.ORDER : Datums.ORDER.reversed();
                order.sort((x, y) -> values.compare(args.get(x)[a], args.get(y)[a]));
                List<Object> elements = new ArrayList<>();
                for (int i : order) {
                    for (long m = members.get(i).mult(); m > 0; m--) {
                        elements.add(args.get(i)[a]);
                    }
                }
                return elements.isEmpty() ? null : new DatumArray(type.element(), elements);
            }
        }
        throw new IllegalStateException("unknown aggregate " + func);
    }

    /** The output of a top-k group: copies {@code offset} to {@code offset + limit} in the top-k order. */
    public static Output topK(Plan.TopK k, List<Member> members) {
        for (Member m : members) {
            if (m.mult() < 0) {
                return new Output(Map.of(), NEGATIVE_TOP_K);
            }
        }
        List<Member> sorted = new ArrayList<>(members);
        Comparator<Row> order = orderBy(k.orderBy());
        sorted.sort((x, y) -> order.compare(x.row(), y.row()));
        long from = k.offset();
        long to = k.limit() == null ? Long.MAX_VALUE : (Long.MAX_VALUE - from < k.limit() ? Long.MAX_VALUE : from + k.limit());
        Map<Row, Long> rows = new LinkedHashMap<>();
        long position = 0;
        for (Member m : sorted) {
            long start = position;
            long end = position + m.mult();
            long kept = Math.max(0, Math.min(end, to) - Math.max(start, from));
            if (kept > 0) {
                rows.merge(m.row(), kept, Long::sum);
            }
            position = end;
            if (position >= to) {
                break;
            }
        }
        return new Output(rows, null);
    }

    /** The error of a window partition holding a row of negative multiplicity. */
    public static final DataError NEGATIVE_WINDOW = new DataError(PlanEvaluator.NEGATIVE_WINDOW, EvalError.Code.DATA_EXCEPTION);

    /** The top-k order: the orderings, then the whole row. */
    public static Comparator<Row> orderBy(List<Plan.Ordering> orderings) {
        return (x, y) -> {
            for (Plan.Ordering o : orderings) {
                Object a = x.get(o.col());
                Object b = y.get(o.col());
                int c;
                if (a == null || b == null) {
                    c = a == null ? (b == null ? 0 : 1) : -1;
                    if (!o.nullsLast()) {
                        c = -c;
                    }
                } else {
                    c = Datums.sqlCompare(a, b);
                    if (o.desc()) {
                        c = -c;
                    }
                }
                if (c != 0) {
                    return c;
                }
            }
            return x.compareTo(y);
        };
    }
}
