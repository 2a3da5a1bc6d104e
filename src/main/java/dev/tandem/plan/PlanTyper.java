package dev.tandem.plan;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

import dev.tandem.expr.Expr;
import dev.tandem.expr.ExprException;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Typing, name resolution and dependency listing of plans. */
final class PlanTyper {

    private PlanTyper() {
    }

    static List<DatumType> types(Plan plan, Function<String, List<DatumType>> typesOf, String path) {
        try {
            return typesUnchecked(plan, typesOf, path);
        } catch (ExprException e) {
            throw PlanException.of(e);
        }
    }

    private static List<DatumType> typesUnchecked(Plan plan, Function<String, List<DatumType>> typesOf, String path) {
        return switch (plan) {
            case Plan.Get g -> {
                if (g.id() == null) {
                    throw new PlanException(child(path, "name"), "unresolved name '" + g.name() + "'; names must be resolved to ids first");
                }
                List<DatumType> t = typesOf.apply(g.id());
                if (t == null) {
                    throw new PlanException(child(path, "id"), "unknown id '" + g.id() + "'");
                }
                yield List.copyOf(t);
            }
            case Plan.Constant c -> {
                for (int i = 0; i < c.rows().size(); i++) {
                    checkRow(c.rows().get(i), c.types(), index(child(path, "rows"), i));
                }
                yield c.types();
            }
            case Plan.MapFilterProject m -> m.mfp().outputTypes(types(m.input(), typesOf, child(path, "input")), path);
            case Plan.Join j -> join(j, typesOf, path);
            case Plan.Reduce r -> {
                List<DatumType> in = types(r.input(), typesOf, child(path, "input"));
                List<DatumType> out = new ArrayList<>();
                for (int i = 0; i < r.groupKey().size(); i++) {
                    out.add(in.get(column(r.groupKey().get(i), in.size(), index(child(path, "group_key"), i))));
                }
                for (int i = 0; i < r.aggregates().size(); i++) {
                    Plan.Aggregate a = r.aggregates().get(i);
                    String at = index(child(path, "aggregates"), i);
                    if (a.expr() == null) {
                        out.add(DatumType.INT64);
                        continue;
                    }
                    DatumType t = a.expr().typeOf(in, child(at, "expr"));
                    if (a.func() == AggregateFunc.SUM && t != DatumType.INT64 && t != DatumType.FLOAT64 && t != DatumType.NUMERIC) {
                        throw new PlanException(at, "sum needs int64, float64 or numeric, got " + t.jsonName());
                    }
                    if (a.func() == AggregateFunc.STRING_AGG && t != DatumType.STRING) {
                        throw new PlanException(at, "string_agg needs string, got " + t.jsonName());
                    }
                    if (a.func().isArrayAgg()) {
                        DatumType array = DatumType.arrayOf(t);
                        if (array == null) {
                            throw new PlanException(at, a.func().jsonName() + " needs a type with an array type, got " + t.jsonName());
                        }
                        t = array;
                    }
                    out.add(a.func() == AggregateFunc.COUNT ? DatumType.INT64 : t);
                }
                yield List.copyOf(out);
            }
            case Plan.TopK k -> {
                List<DatumType> in = types(k.input(), typesOf, child(path, "input"));
                columns(k.groupKey(), in.size(), child(path, "group_key"));
                for (int i = 0; i < k.orderBy().size(); i++) {
                    column(k.orderBy().get(i).col(), in.size(), child(index(child(path, "order_by"), i), "col"));
                }
                yield in;
            }
            case Plan.Window w -> window(w, typesOf, path);
            case Plan.FlatMap f -> {
                List<DatumType> in = types(f.input(), typesOf, child(path, "input"));
                List<DatumType> argTypes = new ArrayList<>();
                for (int i = 0; i < f.args().size(); i++) {
                    argTypes.add(f.args().get(i).typeOf(in, index(child(path, "args"), i)));
                }
                List<DatumType> out = new ArrayList<>(in);
                out.addAll(TableFunctions.types(f.func(), argTypes, child(path, "func")));
                yield List.copyOf(out);
            }
            case Plan.Threshold t -> types(t.input(), typesOf, child(path, "input"));
            case Plan.Negate n -> types(n.input(), typesOf, child(path, "input"));
            case Plan.Union u -> {
                if (u.inputs().isEmpty()) {
                    throw new PlanException(child(path, "inputs"), "a union needs at least one input");
                }
                List<DatumType> first = types(u.inputs().get(0), typesOf, index(child(path, "inputs"), 0));
                for (int i = 1; i < u.inputs().size(); i++) {
                    String at = index(child(path, "inputs"), i);
                    List<DatumType> t = types(u.inputs().get(i), typesOf, at);
                    if (!t.equals(first)) {
                        throw new PlanException(at, "union input has types " + names(t) + ", expected " + names(first) + " like inputs[0]");
                    }
                }
                yield first;
            }
            case Plan.Iterate it -> {
                List<DatumType> seed = types(it.seed(), typesOf, child(path, "seed"));
                List<DatumType> step = types(it.step(), id -> id.equals(it.variable()) ? seed : typesOf.apply(id), child(path, "step"));
                if (!step.equals(seed)) {
                    throw new PlanException(child(path, "step"), "iterate step has types " + names(step) + ", expected " + names(seed) + " like its seed");
                }
                yield seed;
            }
            case Plan.ArrangeBy a -> {
                List<DatumType> in = types(a.input(), typesOf, child(path, "input"));
                columns(a.key(), in.size(), child(path, "key"));
                yield in;
            }
            case Plan.TemporalFilter f -> temporalFilter(f, typesOf, path);
        };
    }

    private static List<DatumType> temporalFilter(Plan.TemporalFilter f, Function<String, List<DatumType>> typesOf, String path) {
        List<DatumType> in = types(f.input(), typesOf, child(path, "input"));
        for (int i = 0; i < f.bounds().size(); i++) {
            String at = child(index(child(path, "bounds"), i), "expr");
            DatumType t = f.bounds().get(i).expr().typeOf(in, at);
            if (t != DatumType.TIMESTAMPTZ && t != DatumType.TIMESTAMP) {
                throw new PlanException(at, "a temporal bound compares the time with a timestamptz or timestamp, got " + t.jsonName());
            }
        }
        return in;
    }

    private static List<DatumType> window(Plan.Window w, Function<String, List<DatumType>> typesOf, String path) {
        List<DatumType> in = types(w.input(), typesOf, child(path, "input"));
        columns(w.partitionBy(), in.size(), child(path, "partition_by"));
        for (int i = 0; i < w.orderBy().size(); i++) {
            column(w.orderBy().get(i).col(), in.size(), child(index(child(path, "order_by"), i), "col"));
        }
        List<DatumType> out = new ArrayList<>(in);
        for (int i = 0; i < w.functions().size(); i++) {
            Plan.WindowFunc f = w.functions().get(i);
            String at = index(child(path, "functions"), i);
            DatumType t = f.expr() == null ? null : f.expr().typeOf(in, child(at, "expr"));
            if (f.kind() == Plan.WindowKind.SUM && t != DatumType.INT64 && t != DatumType.FLOAT64 && t != DatumType.NUMERIC) {
                throw new PlanException(at, "sum needs int64, float64 or numeric, got " + t.jsonName());
            }
            if (f.frame() != null && f.frame().byValue()) {
                if (w.orderBy().size() != 1) {
                    throw new PlanException(child(at, "frame"), "a range frame's bound values need exactly one order_by column");
                }
                DatumType key = in.get(w.orderBy().get(0).col());
                for (String bound : List.of("start_at", "end_at")) {
                    Expr e = bound.equals("start_at") ? f.frame().startAt() : f.frame().endAt();
                    if (e != null && e.typeOf(in, child(child(at, "frame"), bound)) != key) {
                        throw new PlanException(child(child(at, "frame"), bound), "a bound value must be " + key.jsonName() + ", as the order_by column");
                    }
                }
            }
            if (f.kind().variance() && t != DatumType.INT64 && t != DatumType.FLOAT64) {
                throw new PlanException(at, f.kind().jsonName() + " needs int64 or float64, got " + t.jsonName());
            }
            if (f.fallback() != null) {
                DatumType d = f.fallback().typeOf(in, child(at, "default"));
                if (d != t) {
                    throw new PlanException(child(at, "default"), "the default of " + f.kind().jsonName() + " must be " + t.jsonName()
                            + ", got " + d.jsonName());
                }
            }
            out.add(switch (f.kind()) {
                case ROW_NUMBER, RANK, DENSE_RANK, NTILE, COUNT -> DatumType.INT64;
                case PERCENT_RANK, CUME_DIST, VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP -> DatumType.FLOAT64;
                case LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, SUM, MIN, MAX -> t;
            });
        }
        return List.copyOf(out);
    }

    private static List<DatumType> join(Plan.Join j, Function<String, List<DatumType>> typesOf, String path) {
        if (j.inputs().size() < 2) {
            throw new PlanException(child(path, "inputs"), "a join needs at least two inputs, got " + j.inputs().size());
        }
        List<List<DatumType>> in = new ArrayList<>();
        List<DatumType> out = new ArrayList<>();
        for (int i = 0; i < j.inputs().size(); i++) {
            List<DatumType> t = types(j.inputs().get(i), typesOf, index(child(path, "inputs"), i));
            in.add(t);
            out.addAll(t);
        }
        for (int c = 0; c < j.on().size(); c++) {
            String classPath = index(child(path, "on"), c);
            List<Plan.JoinColumn> cls = j.on().get(c);
            if (cls.size() < 2) {
                throw new PlanException(classPath, "an equivalence class needs at least two columns, got " + cls.size());
            }
            DatumType first = null;
            for (int m = 0; m < cls.size(); m++) {
                Plan.JoinColumn jc = cls.get(m);
                String at = index(classPath, m);
                if (jc.input() < 0 || jc.input() >= in.size()) {
                    throw new PlanException(at, "input " + jc.input() + " does not exist; the join has " + in.size() + " inputs");
                }
                List<DatumType> t = in.get(jc.input());
                if (jc.column() < 0 || jc.column() >= t.size()) {
                    throw new PlanException(at, "column " + jc.column() + " does not exist; input " + jc.input() + " has " + t.size() + " columns");
                }
                DatumType type = t.get(jc.column());
                if (first == null) {
                    first = type;
                } else if (type != first) {
                    throw new PlanException(at, "[" + jc.input() + ", " + jc.column() + "] is " + type.jsonName()
                            + " but the class's first column is " + first.jsonName());
                }
            }
        }
        return List.copyOf(out);
    }

    static void checkRow(Row row, List<DatumType> types, String path) {
        int arity = row.arity();
        if (arity != types.size()) {
            throw new PlanException(path, "expected " + types.size() + " values, got " + arity);
        }
        for (int i = 0; i < arity; i++) {
            if (row.typeAt(i) != types.get(i)) {
                throw new PlanException(index(path, i), "expected " + types.get(i).jsonName() + ", got " + row.typeAt(i).jsonName());
            }
        }
    }

    static int column(int c, int arity, String path) {
        if (c < 0 || c >= arity) {
            throw new PlanException(path, "column " + c + " does not exist; the input has " + arity + " columns");
        }
        return c;
    }

    static void columns(List<Integer> cs, int arity, String path) {
        for (int i = 0; i < cs.size(); i++) {
            column(cs.get(i), arity, index(path, i));
        }
    }

    static String names(List<DatumType> types) {
        return types.stream().map(DatumType::jsonName).toList().toString();
    }

    static Plan resolve(Plan plan, Function<String, String> idOfName, String path) {
        return substitute(plan, (g, at) -> {
            if (g.id() != null) {
                return g;
            }
            String id = idOfName.apply(g.name());
            if (id == null) {
                throw new PlanException(child(at, "name"), "unknown name '" + g.name() + "'");
            }
            return Plan.get(id);
        }, path);
    }

    /** The plan with every {@code get} replaced by what {@code replace} returns for it (given its path). */
    static Plan substitute(Plan plan, java.util.function.BiFunction<Plan.Get, String, Plan> replace, String path) {
        return switch (plan) {
            case Plan.Get g -> replace.apply(g, path);
            case Plan.Constant c -> c;
            case Plan.MapFilterProject m -> new Plan.MapFilterProject(substitute(m.input(), replace, child(path, "input")), m.mfp());
            case Plan.Join j -> new Plan.Join(substituteAll(j.inputs(), replace, path), j.on());
            case Plan.Reduce r -> new Plan.Reduce(substitute(r.input(), replace, child(path, "input")), r.groupKey(), r.aggregates());
            case Plan.TopK k -> new Plan.TopK(substitute(k.input(), replace, child(path, "input")), k.groupKey(), k.orderBy(), k.limit(), k.offset());
            case Plan.Window w -> new Plan.Window(substitute(w.input(), replace, child(path, "input")), w.partitionBy(), w.orderBy(), w.functions());
            case Plan.FlatMap f -> new Plan.FlatMap(substitute(f.input(), replace, child(path, "input")), f.func(), f.args(), f.keepEmpty());
            case Plan.Threshold t -> new Plan.Threshold(substitute(t.input(), replace, child(path, "input")));
            case Plan.Negate n -> new Plan.Negate(substitute(n.input(), replace, child(path, "input")));
            case Plan.Union u -> new Plan.Union(substituteAll(u.inputs(), replace, path));
            case Plan.ArrangeBy a -> new Plan.ArrangeBy(substitute(a.input(), replace, child(path, "input")), a.key());
            case Plan.Iterate it -> new Plan.Iterate(substitute(it.seed(), replace, child(path, "seed")),
                    substitute(it.step(), (g, at) -> it.variable().equals(g.id()) ? g : replace.apply(g, at), child(path, "step")),
                    it.variable(), it.all());
            case Plan.TemporalFilter f -> new Plan.TemporalFilter(substitute(f.input(), replace, child(path, "input")), f.bounds());
        };
    }

    private static List<Plan> substituteAll(List<Plan> inputs, java.util.function.BiFunction<Plan.Get, String, Plan> replace, String path) {
        List<Plan> out = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            out.add(substitute(inputs.get(i), replace, index(child(path, "inputs"), i)));
        }
        return out;
    }

    static List<String> dependencies(Plan plan) {
        Set<String> out = new LinkedHashSet<>();
        substitute(plan, (g, at) -> {
            if (g.id() != null) {
                out.add(g.id());
            }
            return g;
        }, "");
        return List.copyOf(out);
    }

    static List<String> namesRead(Plan plan) {
        Set<String> out = new LinkedHashSet<>();
        substitute(plan, (g, at) -> {
            if (g.name() != null) {
                out.add(g.name());
            }
            return g;
        }, "");
        return List.copyOf(out);
    }
}
