package dev.tandem.plan;

import dev.tandem.expr.Datums;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The naive reference evaluator: a plan evaluated from scratch over input multisets. It is the oracle
 * that rendered dataflows are tested against at every timestamp, so it favours obviousness over speed.
 *
 * <p>Semantics, on multisets of rows with signed multiplicities (zero multiplicities never appear):
 * <ul>
 *   <li>{@code get}: the input; {@code constant}: each listed row with multiplicity 1 per listing.</li>
 *   <li>{@code mfp}: applied to each distinct row; a row of multiplicity m yields its output with m,
 *       or an evaluation error with count m.</li>
 *   <li>{@code join}: every combination of one row per input satisfying the equivalence classes
 *       (values equal and non-NULL), with the product of the multiplicities.</li>
 *   <li>{@code reduce}: the aggregate expressions are evaluated first, per row: a row whose evaluation
 *       fails adds its multiplicity to the error and takes no part in the reduce. A group holding a row
 *       of negative multiplicity has no output and adds one error
 *       {@value #NEGATIVE_REDUCE}; otherwise its output row has multiplicity 1. count(*) sums
 *       multiplicities, count(e) those of rows where e is not NULL, sum adds value × multiplicity
 *       (int64 exactly, an out-of-range result is one error {@value #SUM_OVERFLOW} for the group and
 *       no output; float64 in row order), min/max ignore NULLs; NULL when a group has no non-NULL
 *       value. string_agg concatenates the non-NULL strings in ascending order, each as many times as
 *       its multiplicity. array_agg is the array of every value, NULLs included, each as many times as
 *       its multiplicity, in ascending datum order with NULLs last (array_agg_desc: descending with
 *       NULLs first), values comparing equal in the order of their rows; NULL for a group of no rows.</li>
 *   <li>{@code top_k}: per group, the rows ranked by the orderings then by the whole row (row order),
 *       each row counting as many copies as its multiplicity; copies {@code offset} up to
 *       {@code offset + limit} are kept. A group holding a negative multiplicity has no output and
 *       adds one error {@value #NEGATIVE_TOP_K}.</li>
 *   <li>{@code window}: the function arguments are evaluated first, per row: a row whose evaluation
 *       fails adds its multiplicity to the error and takes no part. Per partition, the rows ranked as
 *       in {@code top_k} (a row of multiplicity m is m copies), each copy output with its functions'
 *       values: row_number its position (1-based), rank one more than the copies ordered strictly
 *       before it, dense_rank one more than the distinct orderings before it, lag/lead the argument
 *       of the copy {@code offset} before/after (NULL beyond the ends), count/sum/min/max over the
 *       copies up to its last peer (the whole partition without orderings), NULLs ignored. A
 *       partition holding a negative multiplicity has no output and adds one error
 *       {@value #NEGATIVE_WINDOW}; an int64 sum out of range one error {@value #SUM_OVERFLOW}.</li>
 *   <li>{@code flat_map}: per row, its arguments evaluated (a failure adds the row's multiplicity to the
 *       error) and each row of the function output as the input row followed by the function's columns,
 *       with the row's multiplicity; with {@code keep_empty}, a row the function yields nothing for is
 *       output once with NULLs.</li>
 *   <li>{@code temporal_filter}: evaluated at a logical time {@code t} (milliseconds), the rows on which every
 *       bound holds: the exact integer {@code t * 1000 + shift} compared with the bound's value in
 *       microseconds, a NULL value failing; a bound that fails to evaluate adds the row's multiplicity to
 *       the error. Without a time it cannot be evaluated.</li>
 *   <li>{@code threshold}: rows of positive multiplicity; {@code negate}: multiplicities negated;
 *       {@code union}: multiplicities added; {@code arrange_by}: the input.</li>
 * </ul>
 * Errors flow through every operator unchanged ({@code negate} and {@code threshold} do not touch
 * them) and add up; the error multiset maps a message to its count, zero counts removed.
 */
public final class PlanEvaluator {

    static final String NEGATIVE_REDUCE = "reduce: negative multiplicity in input";
    static final String NEGATIVE_TOP_K = "top_k: negative multiplicity in input";
    static final String NEGATIVE_WINDOW = "window: negative multiplicity in input";
    static final String SUM_OVERFLOW = "int64 overflow in sum";

    /** A collection's contents: rows with their multiplicities and error messages with their counts. */
    public record Result(Map<Row, Long> rows, Map<String, Long> errors) {
        public Result {
            rows = Map.copyOf(rows);
            errors = Map.copyOf(errors);
        }
    }

    private final Function<String, List<DatumType>> typesOf;
    private final Map<String, Result> env;
    /** The logical time a temporal filter is evaluated at; null: none. */
    private final Long time;

    private PlanEvaluator(Function<String, List<DatumType>> typesOf, Map<String, Result> env, Long time) {
        this.typesOf = typesOf;
        this.env = env;
        this.time = time;
    }

    /**
     * Evaluates {@code plan} over {@code inputs} (collection id → row multiplicities; a missing id is
     * empty). The plan must type-check against {@code typesOf}; a {@link PlanException} is thrown if not.
     */
    public static Result evaluate(Plan plan, Function<String, List<DatumType>> typesOf, Map<String, Map<Row, Long>> inputs) {
        return evaluate(plan, typesOf, inputs, null);
    }

    /** As {@link #evaluate(Plan, Function, Map)}, at logical time {@code time} (which temporal filters read; null: none). */
    public static Result evaluate(Plan plan, Function<String, List<DatumType>> typesOf, Map<String, Map<Row, Long>> inputs, Long time) {
        plan.types(typesOf, "");
        Map<String, Result> env = new HashMap<>();
        inputs.forEach((id, rows) -> env.put(id, new Result(consolidate(rows), Map.of())));
        return new PlanEvaluator(typesOf, env, time).eval(plan);
    }

    /**
     * Validates {@code dataflow} and evaluates each of its objects in order over {@code inputs}, keyed by
     * import id (an index import's rows are those of the collection it indexes); returns each object's
     * contents by id.
     */
    public static Map<String, Result> evaluate(DataflowDescription dataflow, Map<String, Map<Row, Long>> inputs) {
        dataflow.validate();
        Map<String, List<DatumType>> types = new HashMap<>(dataflow.importTypes());
        Map<String, Result> env = new HashMap<>();
        inputs.forEach((id, rows) -> env.put(id, new Result(consolidate(rows), Map.of())));
        PlanEvaluator ev = new PlanEvaluator(types::get, env, null);
        Map<String, Result> out = new LinkedHashMap<>();
        for (DataflowDescription.BuildDesc b : dataflow.objectsToBuild()) {
            types.put(b.id(), b.plan().types(types::get, ""));
            Result r = ev.eval(b.plan());
            env.put(b.id(), r);
            out.put(b.id(), r);
        }
        return out;
    }

    private static Map<Row, Long> consolidate(Map<Row, Long> rows) {
        Map<Row, Long> out = new HashMap<>();
        rows.forEach((r, m) -> add(out, r, m));
        return out;
    }

    private static <K> void add(Map<K, Long> m, K k, long d) {
        if (d != 0) {
            m.merge(k, d, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    private List<DatumType> types(Plan p) {
        return p.types(typesOf, "");
    }

    private Result eval(Plan plan) {
        Map<Row, Long> rows = new HashMap<>();
        Map<String, Long> errors = new HashMap<>();
        switch (plan) {
            case Plan.Get g -> {
                Result r = env.getOrDefault(g.id(), new Result(Map.of(), Map.of()));
                rows.putAll(r.rows());
                errors.putAll(r.errors());
            }
            case Plan.Constant c -> c.rows().forEach(r -> add(rows, r, 1));
            case Plan.MapFilterProject m -> {
                Result in = eval(m.input());
                errors.putAll(in.errors());
                MfpEvaluator mfp = m.mfp().bind(types(m.input()));
                in.rows().forEach((r, n) -> {
                    try {
                        Row out = mfp.apply(r);
                        if (out != null) {
                            add(rows, out, n);
                        }
                    } catch (EvalError e) {
                        add(errors, e.getMessage(), n);
                    }
                });
            }
            case Plan.Join j -> {
                List<List<Map.Entry<Row, Long>>> ins = new ArrayList<>();
                for (Plan p : j.inputs()) {
                    Result r = eval(p);
                    r.errors().forEach((e, n) -> add(errors, e, n));
                    ins.add(new ArrayList<>(r.rows().entrySet()));
                }
                join(j, ins, 0, new Object[ins.size()][], Row.EMPTY, 1, rows);
            }
            case Plan.Reduce r -> reduce(r, rows, errors);
            case Plan.TopK k -> topK(k, rows, errors);
            case Plan.Window w -> window(w, rows, errors);
            case Plan.FlatMap f -> flatMap(f, rows, errors);
            case Plan.Threshold t -> {
                Result in = eval(t.input());
                errors.putAll(in.errors());
                in.rows().forEach((r, n) -> {
                    if (n > 0) {
                        rows.put(r, n);
                    }
                });
            }
            case Plan.Negate n -> {
                Result in = eval(n.input());
                errors.putAll(in.errors());
                in.rows().forEach((r, m) -> rows.put(r, -m));
            }
            case Plan.Union u -> {
                for (Plan p : u.inputs()) {
                    Result r = eval(p);
                    r.rows().forEach((row, n) -> add(rows, row, n));
                    r.errors().forEach((e, n) -> add(errors, e, n));
                }
            }
            case Plan.ArrangeBy a -> {
                return eval(a.input());
            }
            case Plan.Iterate it -> iterate(it, rows, errors);
            case Plan.TemporalFilter f -> temporalFilter(f, rows, errors);
        }
        return new Result(rows, errors);
    }

    /**
     * PostgreSQL's evaluation of a recursive query: the work table starts as the seed (distinct under UNION);
     * each round evaluates the step over the work table alone and makes what it adds (under UNION, the
     * distinct rows not yet in the result) the next work table, until it adds nothing.
     */
    private void iterate(Plan.Iterate it, Map<Row, Long> rows, Map<String, Long> errors) {
        Result seed = eval(it.seed());
        seed.errors().forEach((e, n) -> add(errors, e, n));
        List<DatumType> types = types(it.seed());
        Map<Row, Long> work = new HashMap<>();
        seed.rows().forEach((r, n) -> {
            if (it.all()) {
                work.put(r, n);
            } else if (n > 0) {
                work.put(r, 1L);
            }
        });
        work.forEach((r, n) -> add(rows, r, n));
        for (int i = 0; !work.isEmpty(); i++) {
            if (i == Plan.Iterate.MAX_ITERATIONS) {
                add(errors, Plan.Iterate.TOO_MANY_ITERATIONS, 1);
                return;
            }
            Map<String, Result> bound = new HashMap<>(env);
            bound.put(it.variable(), new Result(work, Map.of()));
            Result step = new PlanEvaluator(id -> id.equals(it.variable()) ? types : typesOf.apply(id), bound, time).eval(it.step());
            step.errors().forEach((e, n) -> add(errors, e, n));
            work.clear();
            step.rows().forEach((r, n) -> {
                if (it.all()) {
                    work.put(r, n);
                } else if (n > 0 && !rows.containsKey(r)) {
                    work.put(r, 1L);
                }
            });
            work.forEach((r, n) -> add(rows, r, n));
        }
    }

    private static void join(Plan.Join j, List<List<Map.Entry<Row, Long>>> ins, int i, Object[][] decoded, Row prefix, long mult, Map<Row, Long> out) {
        if (i == ins.size()) {
            for (List<Plan.JoinColumn> cls : j.on()) {
                Object first = decoded[cls.get(0).input()][cls.get(0).column()];
                if (first == null) {
                    return;
                }
                for (Plan.JoinColumn jc : cls) {
                    Object v = decoded[jc.input()][jc.column()];
                    if (v == null || Datums.compare(first, v) != 0) {
                        return;
                    }
                }
            }
            add(out, prefix, mult);
            return;
        }
        for (Map.Entry<Row, Long> e : ins.get(i)) {
            decoded[i] = e.getKey().unpack();
            join(j, ins, i + 1, decoded, prefix.concat(e.getKey()), mult * e.getValue(), out);
        }
    }

    private void reduce(Plan.Reduce r, Map<Row, Long> rows, Map<String, Long> errors) {
        Result in = eval(r.input());
        errors.putAll(in.errors());
        List<DatumType> outTypes = types(r);
        int[] key = r.groupKey().stream().mapToInt(Integer::intValue).toArray();
        Map<Row, TreeMap<Row, Long>> groups = new TreeMap<>();
        Map<Row, Object[]> args = new HashMap<>();
        for (Map.Entry<Row, Long> e : in.rows().entrySet()) {
            Object[] values = e.getKey().unpack();
            Object[] a = new Object[r.aggregates().size()];
            try {
                for (int i = 0; i < a.length; i++) {
                    Plan.Aggregate agg = r.aggregates().get(i);
                    a[i] = agg.expr() == null ? null : agg.expr().eval(values);
                }
            } catch (EvalError err) {
                add(errors, err.getMessage(), e.getValue());
                continue;
            }
            args.put(e.getKey(), a);
            groups.computeIfAbsent(e.getKey().project(key), k -> new TreeMap<>()).put(e.getKey(), e.getValue());
        }
        for (Map.Entry<Row, TreeMap<Row, Long>> g : groups.entrySet()) {
            collect(ReferenceGroups.reduce(r, outTypes, g.getKey(), g.getValue(), args), rows, errors);
        }
    }

    private void topK(Plan.TopK k, Map<Row, Long> rows, Map<String, Long> errors) {
        Result in = eval(k.input());
        errors.putAll(in.errors());
        int[] key = k.groupKey().stream().mapToInt(Integer::intValue).toArray();
        Map<Row, Map<Row, Long>> groups = new TreeMap<>();
        for (Map.Entry<Row, Long> e : in.rows().entrySet()) {
            groups.computeIfAbsent(e.getKey().project(key), g -> new TreeMap<>()).put(e.getKey(), e.getValue());
        }
        for (Map<Row, Long> group : groups.values()) {
            collect(ReferenceGroups.topK(k, group), rows, errors);
        }
    }

    private void window(Plan.Window w, Map<Row, Long> rows, Map<String, Long> errors) {
        Result in = eval(w.input());
        errors.putAll(in.errors());
        List<DatumType> outTypes = types(w);
        int[] key = w.partitionBy().stream().mapToInt(Integer::intValue).toArray();
        Map<Row, Map<Row, Long>> partitions = new TreeMap<>();
        for (Map.Entry<Row, Long> e : in.rows().entrySet()) {
            try {
                Object[] values = e.getKey().unpack();
                for (Plan.WindowFunc f : w.functions()) {
                    if (f.expr() != null) {
                        f.expr().eval(values);
                    }
                    if (f.fallback() != null) {
                        f.fallback().eval(values);
                    }
                    if (f.frame() != null && f.frame().startAt() != null) {
                        f.frame().startAt().eval(values);
                    }
                    if (f.frame() != null && f.frame().endAt() != null) {
                        f.frame().endAt().eval(values);
                    }
                }
            } catch (EvalError err) {
                add(errors, err.getMessage(), e.getValue());
                continue;
            }
            partitions.computeIfAbsent(e.getKey().project(key), g -> new TreeMap<>()).put(e.getKey(), e.getValue());
        }
        for (Map<Row, Long> partition : partitions.values()) {
            collect(ReferenceGroups.window(w, outTypes, partition), rows, errors);
        }
    }

    private void temporalFilter(Plan.TemporalFilter f, Map<Row, Long> rows, Map<String, Long> errors) {
        if (time == null) {
            throw new PlanException("", "a temporal filter is evaluated at a time, and none was given");
        }
        Result in = eval(f.input());
        errors.putAll(in.errors());
        List<DatumType> types = types(f.input());
        java.math.BigInteger micros = java.math.BigInteger.valueOf(time).multiply(java.math.BigInteger.valueOf(1000));
        in.rows().forEach((r, n) -> {
            boolean keep = true;
            for (Plan.TemporalBound b : f.bounds()) {
                Object v;
                try {
                    v = new dev.tandem.expr.Mfp(List.of(b.expr()), List.of(), List.of(types.size())).bind(types).apply(r).get(0);
                } catch (EvalError e) {
                    add(errors, e.getMessage(), n);
                    return;
                }
                if (v == null) {
                    keep = false;
                    continue;
                }
                long value = v instanceof dev.tandem.row.TimestampTz tz ? tz.micros() : ((dev.tandem.row.Timestamp) v).micros();
                int c = micros.add(java.math.BigInteger.valueOf(b.shift())).compareTo(java.math.BigInteger.valueOf(value));
                keep &= switch (b.cmp()) {
                    case LT -> c < 0;
                    case LE -> c <= 0;
                    case GT -> c > 0;
                    case GE -> c >= 0;
                    case EQ -> c == 0;
                };
            }
            if (keep) {
                add(rows, r, n);
            }
        });
    }

    private void flatMap(Plan.FlatMap f, Map<Row, Long> rows, Map<String, Long> errors) {
        Result in = eval(f.input());
        errors.putAll(in.errors());
        List<DatumType> outTypes = types(f);
        int arity = types(f.input()).size();
        in.rows().forEach((row, n) -> {
            Object[] values = row.unpack();
            List<List<Object>> produced;
            try {
                Object[] args = new Object[f.args().size()];
                for (int i = 0; i < args.length; i++) {
                    args[i] = f.args().get(i).eval(values);
                }
                produced = seriesOrElements(f.func(), args);
            } catch (EvalError e) {
                add(errors, e.getMessage(), n);
                return;
            }
            if (produced.isEmpty() && f.keepEmpty()) {
                List<Object> nulls = new ArrayList<>();
                for (int i = arity; i < outTypes.size(); i++) {
                    nulls.add(null);
                }
                produced = List.of(nulls);
            }
            for (List<Object> p : produced) {
                List<Object> all = new ArrayList<>(java.util.Arrays.asList(values));
                all.addAll(p);
                add(rows, Row.pack(outTypes, all), n);
            }
        });
    }

    /**
     * The rows of a set-returning function, each a list of its column values: generate_series counts from start
     * towards stop while not past it (never beyond the int64 range, at most {@link TableFunctions#MAX_SERIES} values;
     * timestamps step by adding the interval),
     * unnest lists the elements and their positions.
     */
    private static List<List<Object>> seriesOrElements(Plan.TableFunc func, Object[] args) {
        List<List<Object>> out = new ArrayList<>();
        if (java.util.Arrays.asList(args).contains(null)) {
            return out;
        }
        switch (func) {
            case GENERATE_SERIES -> {
                if (args[0] instanceof dev.tandem.row.Timestamp) {
                    dev.tandem.row.Interval step = (dev.tandem.row.Interval) args[2];
                    int sign = step.compareSpan(new dev.tandem.row.Interval(0, 0, 0));
                    if (sign == 0) {
                        throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "step size cannot equal zero");
                    }
                    Object v = args[0];
                    while (sign > 0 ? Datums.compare(v, args[1]) <= 0 : Datums.compare(v, args[1]) >= 0) {
                        if (out.size() == TableFunctions.MAX_SERIES) {
                            throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, TableFunctions.SERIES_TOO_LONG);
                        }
                        out.add(java.util.Collections.singletonList(v));
                        v = dev.tandem.expr.Expr.call(dev.tandem.expr.Func.ADD, dev.tandem.expr.Expr.lit(v, DatumType.TIMESTAMP),
                                dev.tandem.expr.Expr.lit(step, DatumType.INTERVAL)).eval(new Object[0]);
                    }
                    return out;
                }
                java.math.BigDecimal start = args[0] instanceof Long l ? java.math.BigDecimal.valueOf(l) : (java.math.BigDecimal) args[0];
                java.math.BigDecimal stop = args[1] instanceof Long l ? java.math.BigDecimal.valueOf(l) : (java.math.BigDecimal) args[1];
                java.math.BigDecimal step = args.length < 3 ? java.math.BigDecimal.ONE
                        : args[2] instanceof Long l ? java.math.BigDecimal.valueOf(l) : (java.math.BigDecimal) args[2];
                if (step.signum() == 0) {
                    throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "step size cannot equal zero");
                }
                boolean ints = args[0] instanceof Long;
                java.math.BigDecimal v = start;
                while (step.signum() > 0 ? v.compareTo(stop) <= 0 : v.compareTo(stop) >= 0) {
                    if (ints && v.toBigInteger().bitLength() > 63) {
                        break;
                    }
                    if (out.size() == TableFunctions.MAX_SERIES) {
                        throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, TableFunctions.SERIES_TOO_LONG);
                    }
                    out.add(java.util.Collections.singletonList(ints ? (Object) v.longValueExact() : v));
                    v = v.add(step);
                }
            }
            case UNNEST, UNNEST_ORDINALITY -> {
                dev.tandem.row.DatumArray a = (dev.tandem.row.DatumArray) args[0];
                for (int i = 0; i < a.size(); i++) {
                    List<Object> r = new ArrayList<>();
                    r.add(a.get(i));
                    if (func == Plan.TableFunc.UNNEST_ORDINALITY) {
                        r.add((long) (i + 1));
                    }
                    out.add(r);
                }
            }
        }
        return out;
    }

    private static void collect(ReferenceGroups.Outcome out, Map<Row, Long> rows, Map<String, Long> errors) {
        out.rows().forEach((row, n) -> add(rows, row, n));
        if (out.error() != null) {
            add(errors, out.error(), 1);
        }
    }
}
