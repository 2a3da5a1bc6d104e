package dev.tandem.plan;

import static dev.tandem.expr.ExprException.child;
import static dev.tandem.expr.ExprException.index;

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
                    if (a.func() == AggregateFunc.SUM && t != DatumType.INT64 && t != DatumType.FLOAT64) {
                        throw new PlanException(at, "sum needs int64 or float64, got " + t.jsonName());
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
            case Plan.ArrangeBy a -> {
                List<DatumType> in = types(a.input(), typesOf, child(path, "input"));
                columns(a.key(), in.size(), child(path, "key"));
                yield in;
            }
        };
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
        return switch (plan) {
            case Plan.Get g -> {
                if (g.id() != null) {
                    yield g;
                }
                String id = idOfName.apply(g.name());
                if (id == null) {
                    throw new PlanException(child(path, "name"), "unknown name '" + g.name() + "'");
                }
                yield Plan.get(id);
            }
            case Plan.Constant c -> c;
            case Plan.MapFilterProject m -> new Plan.MapFilterProject(resolve(m.input(), idOfName, child(path, "input")), m.mfp());
            case Plan.Join j -> new Plan.Join(resolveAll(j.inputs(), idOfName, path), j.on());
            case Plan.Reduce r -> new Plan.Reduce(resolve(r.input(), idOfName, child(path, "input")), r.groupKey(), r.aggregates());
            case Plan.TopK k -> new Plan.TopK(resolve(k.input(), idOfName, child(path, "input")), k.groupKey(), k.orderBy(), k.limit(), k.offset());
            case Plan.Threshold t -> new Plan.Threshold(resolve(t.input(), idOfName, child(path, "input")));
            case Plan.Negate n -> new Plan.Negate(resolve(n.input(), idOfName, child(path, "input")));
            case Plan.Union u -> new Plan.Union(resolveAll(u.inputs(), idOfName, path));
            case Plan.ArrangeBy a -> new Plan.ArrangeBy(resolve(a.input(), idOfName, child(path, "input")), a.key());
        };
    }

    private static List<Plan> resolveAll(List<Plan> inputs, Function<String, String> idOfName, String path) {
        List<Plan> out = new ArrayList<>(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            out.add(resolve(inputs.get(i), idOfName, index(child(path, "inputs"), i)));
        }
        return out;
    }

    static List<String> dependencies(Plan plan) {
        Set<String> out = new LinkedHashSet<>();
        collect(plan, out);
        return List.copyOf(out);
    }

    private static void collect(Plan plan, Set<String> out) {
        switch (plan) {
            case Plan.Get g -> {
                if (g.id() != null) {
                    out.add(g.id());
                }
            }
            case Plan.Constant c -> {
            }
            case Plan.MapFilterProject m -> collect(m.input(), out);
            case Plan.Join j -> j.inputs().forEach(p -> collect(p, out));
            case Plan.Reduce r -> collect(r.input(), out);
            case Plan.TopK k -> collect(k.input(), out);
            case Plan.Threshold t -> collect(t.input(), out);
            case Plan.Negate n -> collect(n.input(), out);
            case Plan.Union u -> u.inputs().forEach(p -> collect(p, out));
            case Plan.ArrangeBy a -> collect(a.input(), out);
        }
    }
}
