package dev.tandem.plan;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * Random well-typed plans, expressions and input data from a seed, for differential tests. In
 * {@code sqlCompatible} mode everything has an exact SQL equivalent (see {@link SqlTranslator}) and
 * cannot fail at run time: int64, string and bool columns only, no division, casts, negate or
 * threshold, small values so nothing overflows, ASCII strings. Otherwise every type (float64 and
 * timestamp too), operator and function may appear, including ones that fail on some rows.
 *
 * <p>Data uses small value domains (so joins and groups hit), about 15% NULLs and duplicate rows.
 */
public final class RandomPlans {

    /** Input types and contents with a plan over them. */
    public record Scenario(Map<String, List<DatumType>> types, Map<String, Map<Row, Long>> data, Plan plan) {
    }

    /** A plan with its output types. */
    public record Typed(Plan plan, List<DatumType> types) {
    }

    private static final String[] STRINGS = {"", "a", "b", "ab", "B", "abc", "x y"};
    private static final String[] LIKE_PATTERNS = {"a%", "%b", "_", "%", "a_c", "%B%", "x\\ y", "\\%"};
    private static final DatumType[] SQL_TYPES = {DatumType.INT64, DatumType.STRING, DatumType.BOOL};
    private static final DatumType[] ALL_TYPES = {DatumType.INT64, DatumType.STRING, DatumType.BOOL, DatumType.FLOAT64, DatumType.TIMESTAMP,
        DatumType.DATE, DatumType.TIMESTAMPTZ, DatumType.INTERVAL, DatumType.UUID};

    private final Random rnd;
    private final boolean sql;

    public RandomPlans(Random rnd, boolean sqlCompatible) {
        this.rnd = rnd;
        this.sql = sqlCompatible;
    }

    /** Scenarios from random seeds. */
    public static Arbitrary<Scenario> scenarios(boolean sqlCompatible) {
        return Arbitraries.longs().map(seed -> new RandomPlans(new Random(seed), sqlCompatible).scenario());
    }

    /** Whether any input column or the plan's output has type {@code t}. */
    public static boolean uses(Scenario s, DatumType t) {
        return s.types().values().stream().anyMatch(types -> types.contains(t));
    }

    /** Two or three inputs {@code u1, u2, ...} with data, and a plan of depth up to 3 over them. */
    public Scenario scenario() {
        Map<String, List<DatumType>> types = inputTypes(2 + rnd.nextInt(2));
        Map<String, Map<Row, Long>> data = new LinkedHashMap<>();
        types.forEach((id, t) -> data.put(id, data(t, 12)));
        return new Scenario(types, data, plan(types, 3).plan());
    }

    /** {@code count} inputs {@code u1, u2, ...} of 1 to 3 columns each. */
    public Map<String, List<DatumType>> inputTypes(int count) {
        Map<String, List<DatumType>> out = new LinkedHashMap<>();
        for (int i = 1; i <= count; i++) {
            List<DatumType> t = new ArrayList<>();
            int arity = 1 + rnd.nextInt(3);
            for (int c = 0; c < arity; c++) {
                t.add(randomType());
            }
            out.put("u" + i, List.copyOf(t));
        }
        return out;
    }

    private DatumType randomType() {
        DatumType[] ts = sql ? SQL_TYPES : ALL_TYPES;
        return ts[rnd.nextInt(ts.length)];
    }

    /** Up to {@code maxRows} distinct rows of {@code types} with multiplicities 1 to 3. */
    public Map<Row, Long> data(List<DatumType> types, int maxRows) {
        Map<Row, Long> out = new HashMap<>();
        int n = rnd.nextInt(maxRows + 1);
        for (int i = 0; i < n; i++) {
            out.merge(row(types), 1L + rnd.nextInt(3), Long::sum);
        }
        return out;
    }

    /** One random row of {@code types}. */
    public Row row(List<DatumType> types) {
        List<Object> values = new ArrayList<>();
        for (DatumType t : types) {
            values.add(rnd.nextInt(100) < 15 ? null : value(t));
        }
        return Row.pack(types, values);
    }

    /** A random non-null value of {@code t} from a small domain. */
    public Object value(DatumType t) {
        return switch (t) {
            case BOOL -> rnd.nextBoolean();
            case INT64 -> (long) (rnd.nextInt(9) - 3);
            case FLOAT64 -> (rnd.nextInt(9) - 3) / 2.0;
            case STRING -> STRINGS[rnd.nextInt(STRINGS.length)];
            case TIMESTAMP -> new dev.tandem.row.Timestamp(rnd.nextInt(1000));
            case NUMERIC -> java.math.BigDecimal.valueOf(rnd.nextInt(9) - 3, rnd.nextInt(3));
            case DATE -> java.time.LocalDate.ofEpochDay(19_000 + rnd.nextInt(40) - 20);
            case TIMESTAMPTZ -> new dev.tandem.row.TimestampTz(rnd.nextInt(1000));
            case UUID -> new java.util.UUID(rnd.nextInt(3) - 1, rnd.nextInt(3) - 1);
            case INTERVAL -> new dev.tandem.row.Interval(rnd.nextInt(3) - 1, rnd.nextInt(61) - 30, rnd.nextInt(3) - 1);
            case JSONB -> dev.tandem.row.Jsonb.of(java.util.List.of((long) rnd.nextInt(3)));
            case BYTEA -> new dev.tandem.row.Bytea(new byte[] {(byte) (rnd.nextInt(3) - 1)});
            default -> throw new UnsupportedOperationException("random plans have no array columns");
        };
    }

    /** A random plan of at most {@code depth} operators over {@code inputs}. */
    public Typed plan(Map<String, List<DatumType>> inputs, int depth) {
        if (depth <= 0 || rnd.nextInt(6) == 0) {
            return leaf(inputs);
        }
        int choice = rnd.nextInt(sql ? 8 : 10);
        return switch (choice) {
            case 0, 1 -> mfp(plan(inputs, depth - 1));
            case 2 -> join(inputs, depth);
            case 3 -> reduce(plan(inputs, depth - 1));
            case 4 -> distinct(plan(inputs, depth - 1));
            case 5 -> topK(plan(inputs, depth - 1));
            case 6 -> {
                Typed p = plan(inputs, depth - 1);
                yield new Typed(new Plan.Union(List.of(p.plan(), filtered(p).plan())), p.types());
            }
            case 7 -> {
                Typed p = plan(inputs, depth - 1);
                yield new Typed(new Plan.ArrangeBy(p.plan(), columns(p.types().size(), 0)), p.types());
            }
            case 8 -> {
                Typed p = plan(inputs, depth - 1);
                Plan except = new Plan.Union(List.of(p.plan(), new Plan.Negate(filtered(p).plan())));
                yield new Typed(rnd.nextBoolean() ? new Plan.Threshold(except) : except, p.types());
            }
            default -> {
                Typed p = plan(inputs, depth - 1);
                yield new Typed(new Plan.Negate(p.plan()), p.types());
            }
        };
    }

    private Typed leaf(Map<String, List<DatumType>> inputs) {
        if (rnd.nextInt(8) == 0) {
            List<DatumType> types = inputTypes(1).get("u1");
            List<Row> rows = new ArrayList<>();
            for (int i = rnd.nextInt(4); i > 0; i--) {
                rows.add(row(types));
            }
            return new Typed(new Plan.Constant(rows, types), types);
        }
        List<String> ids = new ArrayList<>(inputs.keySet());
        String id = ids.get(rnd.nextInt(ids.size()));
        return new Typed(Plan.get(id), inputs.get(id));
    }

    private Typed filtered(Typed p) {
        Mfp m = Mfp.filter(List.of(expr(p.types(), DatumType.BOOL, 2)));
        return new Typed(new Plan.MapFilterProject(p.plan(), m), p.types());
    }

    private Typed mfp(Typed in) {
        List<DatumType> width = new ArrayList<>(in.types());
        List<Expr> map = new ArrayList<>();
        for (int i = rnd.nextInt(3); i > 0; i--) {
            DatumType t = randomType();
            map.add(expr(width, t, 2));
            width.add(t);
        }
        List<Expr> filter = new ArrayList<>();
        for (int i = rnd.nextInt(3); i > 0; i--) {
            filter.add(expr(width, DatumType.BOOL, 2));
        }
        List<Integer> project = rnd.nextInt(3) == 0 ? null : columns(width.size(), 1);
        Mfp m = new Mfp(map, filter, project);
        return new Typed(new Plan.MapFilterProject(in.plan(), m), m.outputTypes(in.types(), ""));
    }

    /** A random list of column indexes below {@code arity}, possibly repeating, of size at least {@code min}. */
    private List<Integer> columns(int arity, int min) {
        List<Integer> out = new ArrayList<>();
        int n = min + rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
            out.add(rnd.nextInt(arity));
        }
        return out;
    }

    private List<Integer> distinctColumns(int arity) {
        List<Integer> out = new ArrayList<>();
        for (int c = 0; c < arity; c++) {
            if (rnd.nextInt(3) == 0) {
                out.add(c);
            }
        }
        return out;
    }

    private Typed join(Map<String, List<DatumType>> inputs, int depth) {
        int n = 2 + (rnd.nextInt(4) == 0 ? 1 : 0);
        List<Typed> ins = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ins.add(plan(inputs, Math.min(depth - 1, 1)));
        }
        List<List<Plan.JoinColumn>> on = new ArrayList<>();
        for (int tries = 1 + rnd.nextInt(3); tries > 0; tries--) {
            int a = rnd.nextInt(n);
            int ca = rnd.nextInt(ins.get(a).types().size());
            DatumType t = ins.get(a).types().get(ca);
            List<Plan.JoinColumn> cls = new ArrayList<>(List.of(new Plan.JoinColumn(a, ca)));
            for (int b = 0; b < n; b++) {
                if (b == a) {
                    continue;
                }
                List<DatumType> tb = ins.get(b).types();
                for (int cb = 0; cb < tb.size(); cb++) {
                    if (tb.get(cb) == t && rnd.nextBoolean()) {
                        cls.add(new Plan.JoinColumn(b, cb));
                        break;
                    }
                }
            }
            if (cls.size() >= 2) {
                on.add(cls);
            }
        }
        List<DatumType> types = new ArrayList<>();
        ins.forEach(t -> types.addAll(t.types()));
        return new Typed(new Plan.Join(ins.stream().map(Typed::plan).toList(), on), List.copyOf(types));
    }

    private Typed reduce(Typed in) {
        List<Integer> key = distinctColumns(in.types().size());
        List<Plan.Aggregate> aggs = new ArrayList<>();
        int n = (key.isEmpty() ? 1 : 0) + rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
            AggregateFunc f = AggregateFunc.values()[rnd.nextInt(4)];
            if (f == AggregateFunc.COUNT && rnd.nextBoolean()) {
                aggs.add(new Plan.Aggregate(f, null));
            } else if (f == AggregateFunc.SUM) {
                DatumType t = sql || rnd.nextBoolean() ? DatumType.INT64 : DatumType.FLOAT64;
                aggs.add(new Plan.Aggregate(f, expr(in.types(), t, 1)));
            } else {
                aggs.add(new Plan.Aggregate(f, expr(in.types(), randomType(), 1)));
            }
        }
        List<DatumType> types = new Plan.Reduce(new Plan.Constant(List.of(), in.types()), key, aggs).types(id -> null, "");
        return new Typed(new Plan.Reduce(in.plan(), key, aggs), types);
    }

    private Typed distinct(Typed in) {
        List<Integer> all = new ArrayList<>();
        for (int c = 0; c < in.types().size(); c++) {
            all.add(c);
        }
        Plan.Reduce r = new Plan.Reduce(in.plan(), all, List.of());
        return new Typed(r, in.types());
    }

    private Typed topK(Typed in) {
        int arity = in.types().size();
        List<Plan.Ordering> order = new ArrayList<>();
        for (int i = rnd.nextInt(3); i > 0; i--) {
            order.add(new Plan.Ordering(rnd.nextInt(arity), rnd.nextBoolean(), rnd.nextBoolean()));
        }
        Long limit = rnd.nextInt(4) == 0 ? null : (long) rnd.nextInt(4);
        long offset = rnd.nextInt(3) == 0 ? rnd.nextInt(3) : 0;
        return new Typed(new Plan.TopK(in.plan(), distinctColumns(arity), order, limit, offset), in.types());
    }

    /** A random expression of type {@code want} over columns of {@code in}. */
    public Expr expr(List<DatumType> in, DatumType want, int depth) {
        List<Integer> cols = new ArrayList<>();
        for (int c = 0; c < in.size(); c++) {
            if (in.get(c) == want) {
                cols.add(c);
            }
        }
        if (depth <= 0 || rnd.nextInt(4) == 0) {
            if (!cols.isEmpty() && rnd.nextInt(4) != 0) {
                return Expr.col(cols.get(rnd.nextInt(cols.size())));
            }
            return Expr.lit(rnd.nextInt(8) == 0 ? null : value(want), want);
        }
        int d = depth - 1;
        if (!sql && rnd.nextInt(8) == 0) {
            DatumType from = randomType();
            if (castable(from, want)) {
                return Expr.cast(expr(in, from, d), want);
            }
        }
        switch (rnd.nextInt(3)) {
            case 0 -> {
                return Expr.call(Func.COALESCE, expr(in, want, d), expr(in, want, d));
            }
            case 1 -> {
                return Expr.call(Func.IF, expr(in, DatumType.BOOL, d), expr(in, want, d), expr(in, want, d));
            }
            default -> {
            }
        }
        return switch (want) {
            case BOOL -> switch (rnd.nextInt(6)) {
                case 0 -> {
                    DatumType t = in.isEmpty() ? DatumType.INT64 : in.get(rnd.nextInt(in.size()));
                    Func f = new Func[] {Func.EQ, Func.NEQ, Func.LT, Func.LTE, Func.GT, Func.GTE}[rnd.nextInt(6)];
                    yield Expr.call(f, expr(in, t, d), expr(in, t, d));
                }
                case 1 -> Expr.call(rnd.nextBoolean() ? Func.AND : Func.OR, expr(in, DatumType.BOOL, d), expr(in, DatumType.BOOL, d));
                case 2 -> Expr.call(Func.NOT, expr(in, DatumType.BOOL, d));
                case 3 -> Expr.call(Func.IS_NULL, expr(in, in.isEmpty() ? DatumType.INT64 : in.get(rnd.nextInt(in.size())), d));
                case 4 -> Expr.call(rnd.nextBoolean() ? Func.LIKE : Func.ILIKE, expr(in, DatumType.STRING, d),
                        Expr.lit(LIKE_PATTERNS[rnd.nextInt(LIKE_PATTERNS.length)], DatumType.STRING));
                default -> Expr.call(Func.EQ, expr(in, DatumType.INT64, d), expr(in, DatumType.INT64, d));
            };
            case INT64, FLOAT64 -> {
                Func[] fs = sql ? new Func[] {Func.ADD, Func.SUB, Func.MUL, Func.NEG, Func.ABS}
                        : new Func[] {Func.ADD, Func.SUB, Func.MUL, Func.NEG, Func.ABS, Func.DIV, Func.MOD};
                if (want == DatumType.INT64 && rnd.nextInt(5) == 0) {
                    yield Expr.call(Func.LENGTH, expr(in, DatumType.STRING, d));
                }
                Func f = fs[rnd.nextInt(fs.length)];
                yield f == Func.NEG || f == Func.ABS ? Expr.call(f, expr(in, want, d)) : Expr.call(f, expr(in, want, d), expr(in, want, d));
            }
            case STRING -> switch (rnd.nextInt(4)) {
                case 0 -> Expr.call(Func.CONCAT, expr(in, DatumType.STRING, d), expr(in, DatumType.STRING, d));
                case 1 -> Expr.call(rnd.nextBoolean() ? Func.LOWER : Func.UPPER, expr(in, DatumType.STRING, d));
                case 2 -> Expr.call(Func.SUBSTR, expr(in, DatumType.STRING, d), Expr.lit(1L + rnd.nextInt(3), DatumType.INT64),
                        Expr.lit((long) rnd.nextInt(3), DatumType.INT64));
                default -> Expr.call(Func.CONCAT, expr(in, DatumType.STRING, d), Expr.lit(STRINGS[rnd.nextInt(STRINGS.length)], DatumType.STRING));
            };
            default -> Expr.lit(value(want), want);
        };
    }

    private static boolean castable(DatumType from, DatumType to) {
        try {
            Expr.cast(Expr.lit(null, from), to).typeOf(List.of());
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
