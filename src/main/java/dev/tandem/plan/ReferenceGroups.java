package dev.tandem.plan;

import dev.tandem.expr.Datums;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.RowPacker;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The reference evaluator's own group semantics for {@code reduce} and {@code top_k}, written from the
 * definitions in {@link PlanEvaluator}'s documentation and sharing no code with the rendered operators,
 * so a differential test of the two can catch a bug in either. Slow and plain on purpose: every sum is a
 * {@link BigInteger}, every position an exact count.
 */
final class ReferenceGroups {

    /** A group's outcome: its output rows, or the one error it adds instead. */
    record Outcome(Map<Row, Long> rows, String error) {
    }

    private ReferenceGroups() {
    }

    /**
     * One reduce group: {@code members} maps each member row (in row order) to its multiplicity and the
     * values of the aggregates' arguments, already evaluated ({@code null} argument list entries are
     * NULL; a count without an argument sees every row).
     */
    static Outcome reduce(Plan.Reduce r, List<DatumType> outTypes, Row key, SortedMap<Row, Long> members, Map<Row, Object[]> args) {
        for (long mult : members.values()) {
            if (mult < 0) {
                return new Outcome(Map.of(), PlanEvaluator.NEGATIVE_REDUCE);
            }
        }
        List<Object> out = new ArrayList<>(Arrays.asList(key.unpack()));
        for (int a = 0; a < r.aggregates().size(); a++) {
            Plan.Aggregate agg = r.aggregates().get(a);
            DatumType type = outTypes.get(r.groupKey().size() + a);
            Object value;
            switch (agg.func()) {
                case COUNT -> {
                    BigInteger n = BigInteger.ZERO;
                    for (Map.Entry<Row, Long> m : members.entrySet()) {
                        if (agg.expr() == null || args.get(m.getKey())[a] != null) {
                            n = n.add(BigInteger.valueOf(m.getValue()));
                        }
                    }
                    value = n.longValueExact();
                }
                case SUM -> {
                    value = sum(a, type, members, args);
                    if (value == PlanEvaluator.SUM_OVERFLOW) {
                        return new Outcome(Map.of(), PlanEvaluator.SUM_OVERFLOW);
                    }
                }
                case MIN, MAX -> {
                    Object best = null;
                    for (Row row : members.keySet()) {
                        Object v = args.get(row)[a];
                        if (v == null) {
                            continue;
                        }
                        int c = best == null ? 0 : Datums.compare(v, best);
                        if (best == null || (agg.func() == AggregateFunc.MIN ? c < 0 : c > 0)) {
                            best = v;
                        }
                    }
                    value = best;
                }
                case STRING_AGG -> {
                    java.util.TreeMap<String, Long> values = new java.util.TreeMap<>((x, y) -> Datums.compare(x, y));
                    for (Map.Entry<Row, Long> m : members.entrySet()) {
                        Object v = args.get(m.getKey())[a];
                        if (v != null) {
                            values.merge((String) v, m.getValue(), Long::sum);
                        }
                    }
                    StringBuilder b = new StringBuilder();
                    values.forEach((v, n) -> b.append(v.repeat(n.intValue())));
                    value = values.isEmpty() ? null : b.toString();
                }
                case ARRAY_AGG, ARRAY_AGG_DESC -> value = arrayAgg(a, agg.func() == AggregateFunc.ARRAY_AGG_DESC, type, members, args);
                default -> throw new IllegalStateException("the reference evaluator does not know " + agg.func());
            }
            out.add(value);
        }
        return new Outcome(Map.of(Row.pack(outTypes, out), 1L), null);
    }

    /**
     * The array of argument {@code a}'s values, NULLs too, each repeated by its multiplicity: taken one member at a
     * time, always the first (in row order) of the least left (the greatest when {@code descending}), NULL ranking
     * above every value; NULL when the group has no members.
     */
    private static Object arrayAgg(int a, boolean descending, DatumType type, SortedMap<Row, Long> members, Map<Row, Object[]> args) {
        List<Map.Entry<Row, Long>> left = new ArrayList<>(members.entrySet());
        List<Object> elements = new ArrayList<>();
        while (!left.isEmpty()) {
            int pick = 0;
            for (int i = 1; i < left.size(); i++) {
                Object v = args.get(left.get(i).getKey())[a];
                Object best = args.get(left.get(pick).getKey())[a];
                int c = v == null || best == null ? (v == null ? (best == null ? 0 : 1) : -1) : Datums.compare(v, best);
                if (descending ? c > 0 : c < 0) {
                    pick = i;
                }
            }
            Map.Entry<Row, Long> taken = left.remove(pick);
            for (long n = 0; n < taken.getValue(); n++) {
                elements.add(args.get(taken.getKey())[a]);
            }
        }
        return elements.isEmpty() ? null : new dev.tandem.row.DatumArray(type.element(), elements);
    }

    /** The sum of argument {@code a}, NULL without a non-NULL value, or {@link PlanEvaluator#SUM_OVERFLOW}. */
    private static Object sum(int a, DatumType type, SortedMap<Row, Long> members, Map<Row, Object[]> args) {
        boolean any = false;
        BigInteger exact = BigInteger.ZERO;
        double approx = 0.0;
        java.math.BigDecimal decimal = java.math.BigDecimal.ZERO;
        for (Map.Entry<Row, Long> m : members.entrySet()) {
            Object v = args.get(m.getKey())[a];
            if (v == null) {
                continue;
            }
            any = true;
            if (type == DatumType.FLOAT64) {
                approx += ((Number) v).doubleValue() * m.getValue();
            } else if (type == DatumType.NUMERIC) {
                decimal = decimal.add(((java.math.BigDecimal) v).multiply(java.math.BigDecimal.valueOf(m.getValue())));
            } else {
                exact = exact.add(BigInteger.valueOf((Long) v).multiply(BigInteger.valueOf(m.getValue())));
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
        boolean fits = exact.compareTo(BigInteger.valueOf(Long.MIN_VALUE)) >= 0 && exact.compareTo(BigInteger.valueOf(Long.MAX_VALUE)) <= 0;
        return fits ? (Object) exact.longValue() : PlanEvaluator.SUM_OVERFLOW;
    }

    /** One top-k group: {@code members} maps each row to its multiplicity. */
    static Outcome topK(Plan.TopK k, Map<Row, Long> members) {
        for (long mult : members.values()) {
            if (mult < 0) {
                return new Outcome(Map.of(), PlanEvaluator.NEGATIVE_TOP_K);
            }
        }
        List<Row> ranked = new ArrayList<>(members.keySet());
        ranked.sort(ranking(k.orderBy()));
        // Copy number p (0-based, counting every copy of every row in rank order) is kept when
        // offset <= p < offset + limit.
        BigInteger from = BigInteger.valueOf(k.offset());
        BigInteger to = k.limit() == null ? null : from.add(BigInteger.valueOf(k.limit()));
        Map<Row, Long> kept = new LinkedHashMap<>();
        BigInteger position = BigInteger.ZERO;
        for (Row row : ranked) {
            BigInteger first = position;
            BigInteger end = position.add(BigInteger.valueOf(members.get(row)));
            BigInteger lo = first.max(from);
            BigInteger hi = to == null ? end : end.min(to);
            if (hi.compareTo(lo) > 0) {
                kept.put(row, hi.subtract(lo).longValueExact());
            }
            position = end;
        }
        return new Outcome(kept, null);
    }

    /** One window partition, computed for each copy from scratch over the whole sorted partition. */
    static Outcome window(Plan.Window w, List<DatumType> outTypes, Map<Row, Long> members) {
        for (long mult : members.values()) {
            if (mult < 0) {
                return new Outcome(Map.of(), PlanEvaluator.NEGATIVE_WINDOW);
            }
        }
        List<Row> ranked = new ArrayList<>(members.keySet());
        ranked.sort(ranking(w.orderBy()));
        List<Row> copies = new ArrayList<>();
        for (Row row : ranked) {
            for (long c = 0; c < members.get(row); c++) {
                copies.add(row);
            }
        }
        int n = copies.size();
        int inArity = outTypes.size() - w.functions().size();
        Map<Row, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            Row row = copies.get(i);
            Object[] values = new Object[outTypes.size()];
            for (int c = 0; c < inArity; c++) {
                values[c] = row.get(c);
            }
            for (int f = 0; f < w.functions().size(); f++) {
                Plan.WindowFunc fn = w.functions().get(f);
                Object v;
                switch (fn.kind()) {
                    case ROW_NUMBER -> v = (long) (i + 1);
                    case RANK -> {
                        long before = 0;
                        for (int j = 0; j < n; j++) {
                            if (orderedBefore(w.orderBy(), copies.get(j), row)) {
                                before++;
                            }
                        }
                        v = before + 1;
                    }
                    case DENSE_RANK -> {
                        List<Row> distinct = new ArrayList<>();
                        for (int j = 0; j < n; j++) {
                            Row other = copies.get(j);
                            if (orderedBefore(w.orderBy(), other, row)
                                    && distinct.stream().noneMatch(d -> !orderedBefore(w.orderBy(), d, other) && !orderedBefore(w.orderBy(), other, d))) {
                                distinct.add(other);
                            }
                        }
                        v = (long) distinct.size() + 1;
                    }
                    case PERCENT_RANK -> {
                        long before = 0;
                        for (int j = 0; j < n; j++) {
                            if (orderedBefore(w.orderBy(), copies.get(j), row)) {
                                before++;
                            }
                        }
                        v = n == 1 ? 0.0 : (double) before / (n - 1);
                    }
                    case CUME_DIST -> {
                        long upToPeers = 0;
                        for (int j = 0; j < n; j++) {
                            if (!orderedBefore(w.orderBy(), row, copies.get(j))) {
                                upToPeers++;
                            }
                        }
                        v = (double) upToPeers / n;
                    }
                    case NTILE -> {
                        // deal the rows out in order: the first n % buckets buckets take one row more than the others
                        long buckets = fn.offset();
                        long bucket = 1;
                        long filled = 0;
                        for (int j = 0; j < i; j++) {
                            filled++;
                            long size = n / buckets + (bucket <= n % buckets ? 1 : 0);
                            if (filled == size) {
                                bucket++;
                                filled = 0;
                            }
                        }
                        v = bucket;
                    }
                    case LAG, LEAD -> {
                        long j = fn.kind() == Plan.WindowKind.LAG ? i - fn.offset() : i + fn.offset();
                        if (j < 0 || j >= n) {
                            v = fn.fallback() == null ? null : fn.fallback().eval(row.unpack());
                        } else {
                            v = fn.expr().eval(copies.get((int) j).unpack());
                        }
                    }
                    case FIRST_VALUE, LAST_VALUE, NTH_VALUE -> {
                        List<Object> frame = new ArrayList<>();
                        for (int j = 0; j < n; j++) {
                            if (inFrame(w.orderBy(), fn.frame(), copies, i, j)) {
                                frame.add(fn.expr().eval(copies.get(j).unpack()));
                            }
                        }
                        int at = fn.kind() == Plan.WindowKind.FIRST_VALUE ? 0
                                : fn.kind() == Plan.WindowKind.LAST_VALUE ? frame.size() - 1 : (int) Math.min(fn.offset() - 1, Integer.MAX_VALUE - 1);
                        v = at >= 0 && at < frame.size() ? frame.get(at) : null;
                    }
                    default -> {
                        List<Object> frame = new ArrayList<>();
                        for (int j = 0; j < n; j++) {
                            if (inFrame(w.orderBy(), fn.frame(), copies, i, j)) {
                                frame.add(fn.expr() == null ? Boolean.TRUE : fn.expr().eval(copies.get(j).unpack()));
                            }
                        }
                        frame.removeIf(java.util.Objects::isNull);
                        DatumType type = outTypes.get(inArity + f);
                        v = switch (fn.kind()) {
                            case COUNT -> (long) frame.size();
                            case MIN -> frame.stream().min(Datums::compare).orElse(null);
                            case MAX -> frame.stream().max(Datums::compare).orElse(null);
                            case VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP -> frameVariance(fn.kind(), frame);
                            default -> frameSum(type, frame);
                        };
                        if (v == PlanEvaluator.SUM_OVERFLOW) {
                            return new Outcome(Map.of(), PlanEvaluator.SUM_OVERFLOW);
                        }
                    }
                }
                values[inArity + f] = v;
            }
            RowPacker p = new RowPacker();
            for (int c = 0; c < values.length; c++) {
                p.push(outTypes.get(c), values[c]);
            }
            out.merge(p.finish(), 1L, Long::sum);
        }
        return new Outcome(out, null);
    }

    /** Whether the copy at {@code j} is in the frame of the copy at {@code i}, after the frame's exclusion. */
    private static boolean inFrame(List<Plan.Ordering> orderings, Plan.Frame frame, List<Row> copies, int i, int j) {
        boolean peer = !orderedBefore(orderings, copies.get(j), copies.get(i)) && !orderedBefore(orderings, copies.get(i), copies.get(j));
        boolean excluded = switch (frame.exclude()) {
            case NO_OTHERS -> false;
            case CURRENT_ROW -> j == i;
            case GROUP -> peer;
            case TIES -> peer && j != i;
        };
        if (excluded) {
            return false;
        }
        if (frame.rows()) {
            return (frame.start() == null || j >= i + frame.start()) && (frame.end() == null || j <= i + frame.end());
        }
        boolean afterStart = frame.start() == null || !orderedBefore(orderings, copies.get(j), copies.get(i));
        boolean beforeEnd = frame.end() == null || !orderedBefore(orderings, copies.get(i), copies.get(j));
        if (frame.startAt() != null) {
            Plan.Ordering o = orderings.get(0);
            afterStart = place(o, copies.get(j).get(o.col()), frame.startAt().eval(copies.get(i).unpack())) >= 0;
        }
        if (frame.endAt() != null) {
            Plan.Ordering o = orderings.get(0);
            beforeEnd = place(o, copies.get(j).get(o.col()), frame.endAt().eval(copies.get(i).unpack())) <= 0;
        }
        return afterStart && beforeEnd;
    }

    /** Where value {@code x} sorts beside value {@code y} in ordering {@code o}: negative before it, 0 level, positive after. */
    private static int place(Plan.Ordering o, Object x, Object y) {
        if (x == null || y == null) {
            return x == y ? 0 : (x == null) == o.nullsLast() ? 1 : -1;
        }
        return o.desc() ? Datums.sqlCompare(y, x) : Datums.sqlCompare(x, y);
    }

    /**
     * A variance or standard deviation of the frame's non-NULL values: NULL over none (over one too for the samples'),
     * NaN with an infinite or NaN value among them; else the exact {@code Σ(n·x − Σx)² / (n²·(n or n − 1))}, to 40
     * digits, as a double (its square root for the deviations).
     */
    private static Object frameVariance(Plan.WindowKind kind, List<Object> values) {
        boolean sample = kind == Plan.WindowKind.VAR_SAMP || kind == Plan.WindowKind.STDDEV_SAMP;
        int n = values.size();
        if (n == 0 || sample && n == 1) {
            return null;
        }
        java.math.BigDecimal total = java.math.BigDecimal.ZERO;
        for (Object v : values) {
            if (v instanceof Double d && !Double.isFinite(d)) {
                return Double.NaN;
            }
            total = total.add(decimal(v));
        }
        java.math.BigDecimal big = java.math.BigDecimal.valueOf(n);
        java.math.BigDecimal squares = java.math.BigDecimal.ZERO;
        for (Object v : values) {
            java.math.BigDecimal d = decimal(v).multiply(big).subtract(total);
            squares = squares.add(d.multiply(d));
        }
        java.math.BigDecimal divisor = big.multiply(big).multiply(sample ? big.subtract(java.math.BigDecimal.ONE) : big);
        double variance = squares.divide(divisor, new java.math.MathContext(40)).doubleValue();
        return kind == Plan.WindowKind.STDDEV_POP || kind == Plan.WindowKind.STDDEV_SAMP ? Math.sqrt(variance) : variance;
    }

    private static java.math.BigDecimal decimal(Object v) {
        return v instanceof Long l ? java.math.BigDecimal.valueOf(l) : new java.math.BigDecimal((Double) v);
    }

    /** Whether {@code a} sorts strictly before {@code b} on the orderings alone (not a peer). */
    private static boolean orderedBefore(List<Plan.Ordering> orderings, Row a, Row b) {
        for (Plan.Ordering o : orderings) {
            Object x = a.get(o.col());
            Object y = b.get(o.col());
            int c;
            if (x == null && y == null) {
                c = 0;
            } else if (x == null) {
                c = o.nullsLast() ? 1 : -1;
            } else if (y == null) {
                c = o.nullsLast() ? -1 : 1;
            } else {
                c = o.desc() ? Datums.sqlCompare(y, x) : Datums.sqlCompare(x, y);
            }
            if (c != 0) {
                return c < 0;
            }
        }
        return false;
    }

    private static Object frameSum(DatumType type, List<Object> values) {
        if (values.isEmpty()) {
            return null;
        }
        switch (type) {
            case INT64 -> {
                BigInteger s = BigInteger.ZERO;
                for (Object v : values) {
                    s = s.add(BigInteger.valueOf((Long) v));
                }
                return s.bitLength() < 64 ? (Object) s.longValue() : PlanEvaluator.SUM_OVERFLOW;
            }
            case FLOAT64 -> {
                double s = 0;
                for (Object v : values) {
                    s += (Double) v;
                }
                return s;
            }
            default -> {
                java.math.BigDecimal s = java.math.BigDecimal.ZERO;
                for (Object v : values) {
                    s = s.add((java.math.BigDecimal) v);
                }
                return s;
            }
        }
    }

    /**
     * The top-k ranking: each ordering in turn (NULL sorts after every value when {@code nullsLast},
     * before otherwise, whatever the direction; {@code desc} reverses the order of values), then row order.
     */
    static Comparator<Row> ranking(List<Plan.Ordering> orderings) {
        return (x, y) -> {
            for (Plan.Ordering o : orderings) {
                Object a = x.get(o.col());
                Object b = y.get(o.col());
                int c;
                if (a == null && b == null) {
                    c = 0;
                } else if (a == null) {
                    c = o.nullsLast() ? 1 : -1;
                } else if (b == null) {
                    c = o.nullsLast() ? -1 : 1;
                } else {
                    c = o.desc() ? Datums.sqlCompare(b, a) : Datums.sqlCompare(a, b);
                }
                if (c != 0) {
                    return c;
                }
            }
            return x.compareTo(y);
        };
    }
}
