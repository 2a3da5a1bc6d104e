package dev.tandem.plan;

import dev.tandem.expr.Expr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The default column names of a plan's output, for a view or a query created without explicit names:
 * columns passed through keep their input's names (a {@code get} names its collection's columns, a
 * projection or a group key keeps what it picks, a join concatenates its inputs), an aggregate is named
 * after its function and, when its argument is a column, that column ({@code count}, {@code sum_v}), and
 * a computed column with no better name is {@code c<i>} by its position. Repeated names get their
 * position as a suffix ({@code id}, {@code id_2}), so the names are unique.
 */
public final class PlanNames {

    private PlanNames() {
    }

    /**
     * The names of {@code plan}'s columns. {@code columnsOf} gives the column names of a collection
     * named by a {@code get}; the plan must already be well-typed.
     */
    public static List<String> of(Plan plan, Function<String, List<String>> columnsOf) {
        return unique(names(plan, columnsOf));
    }

    private static List<String> names(Plan plan, Function<String, List<String>> columnsOf) {
        return switch (plan) {
            case Plan.Get g -> {
                List<String> names = columnsOf.apply(g.name() != null ? g.name() : g.id());
                if (names == null) {
                    throw new IllegalArgumentException("no columns known for " + (g.name() != null ? g.name() : g.id()));
                }
                yield names;
            }
            case Plan.Constant c -> positional(c.types().size());
            case Plan.MapFilterProject m -> {
                List<String> all = new ArrayList<>(names(m.input(), columnsOf));
                for (Expr e : m.mfp().map()) {
                    all.add(e instanceof Expr.Col col ? all.get(col.index()) : "c" + all.size());
                }
                yield m.mfp().project() == null ? all : m.mfp().project().stream().map(all::get).toList();
            }
            case Plan.Join j -> {
                List<String> all = new ArrayList<>();
                for (Plan input : j.inputs()) {
                    all.addAll(names(input, columnsOf));
                }
                yield all;
            }
            case Plan.Reduce r -> {
                List<String> in = names(r.input(), columnsOf);
                List<String> out = new ArrayList<>();
                for (int k : r.groupKey()) {
                    out.add(in.get(k));
                }
                for (Plan.Aggregate a : r.aggregates()) {
                    String func = a.func().jsonName();
                    out.add(a.expr() instanceof Expr.Col col ? func + "_" + in.get(col.index()) : func);
                }
                yield out;
            }
            case Plan.TopK k -> names(k.input(), columnsOf);
            case Plan.Window w -> {
                List<String> out = new ArrayList<>(names(w.input(), columnsOf));
                List<String> in = List.copyOf(out);
                for (Plan.WindowFunc f : w.functions()) {
                    String func = f.kind().jsonName();
                    out.add(f.expr() instanceof Expr.Col col ? func + "_" + in.get(col.index()) : func);
                }
                yield out;
            }
            case Plan.FlatMap f -> {
                List<String> out = new ArrayList<>(names(f.input(), columnsOf));
                out.add(f.func() == Plan.TableFunc.GENERATE_SERIES ? "generate_series" : "unnest");
                if (f.func() == Plan.TableFunc.UNNEST_ORDINALITY) {
                    out.add("ordinality");
                }
                yield out;
            }
            case Plan.Threshold t -> names(t.input(), columnsOf);
            case Plan.Negate n -> names(n.input(), columnsOf);
            case Plan.Union u -> u.inputs().isEmpty() ? List.of() : names(u.inputs().get(0), columnsOf);
            case Plan.ArrangeBy a -> names(a.input(), columnsOf);
            case Plan.Iterate it -> names(it.seed(), columnsOf);
            case Plan.TemporalFilter f -> names(f.input(), columnsOf);
        };
    }

    private static List<String> positional(int arity) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < arity; i++) {
            out.add("c" + i);
        }
        return out;
    }

    /** Keeps the first of equal names; a later one gets its (1-based) position appended. */
    static List<String> unique(List<String> names) {
        Set<String> seen = new HashSet<>(names.size() * 2);
        List<String> out = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            String candidate = name;
            for (int n = i + 1; seen.contains(candidate); n++) {
                candidate = name + "_" + n;
            }
            seen.add(candidate);
            out.add(candidate);
        }
        return out;
    }
}
