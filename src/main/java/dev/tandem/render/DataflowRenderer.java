package dev.tandem.render;

import dev.tandem.expr.Expr;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.sharing.SharedArrangement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Supplier;

/** Turns a validated {@link DataflowDescription} into operators. */
final class DataflowRenderer {

    private final DataflowDescription desc;
    private final int workers;
    private final Function<String, Supplier<SharedArrangement.Snapshot>> importSnapshots;
    private final Map<String, List<DatumType>> types = new HashMap<>();
    private final Map<String, Operator> built = new HashMap<>();
    /** The plan of each object the dataflow builds, for {@link #nonNegative}. */
    private final Map<String, Plan> builtPlans = new HashMap<>();
    private final java.util.function.Predicate<String> nonNegativeSources;
    final Map<String, SourceOperator> sources = new LinkedHashMap<>();
    final Map<String, ImportOperator> imports = new LinkedHashMap<>();
    final List<ExportOperator> exports = new ArrayList<>();

    /**
     * @param nonNegativeSources which source imports never hold a row of negative multiplicity (tables
     *     whose storage found no negative count at recovery)
     */
    DataflowRenderer(DataflowDescription desc, int workers, Function<String, Supplier<SharedArrangement.Snapshot>> importSnapshots,
            java.util.function.Predicate<String> nonNegativeSources) {
        this.desc = desc;
        this.nonNegativeSources = nonNegativeSources;
        this.workers = workers;
        this.importSnapshots = importSnapshots;
        types.putAll(desc.importTypes());
        desc.objectsToBuild().forEach(b -> builtPlans.put(b.id(), b.plan()));
    }

    void render() {
        for (DataflowDescription.BuildDesc b : desc.objectsToBuild()) {
            built.put(b.id(), render(b.plan()));
            types.put(b.id(), b.plan().types(this::typesOf, ""));
        }
        for (DataflowDescription.IndexExport e : desc.indexExports()) {
            exports.add(new ExportOperator(e.id(), built.get(e.object()), ints(e.key()), workers, desc.asOf()));
        }
    }

    private List<DatumType> typesOf(String id) {
        return types.get(id);
    }

    /**
     * The operator of each plan rendered so far, by value: equal subplans (a decorrelated subquery's
     * reduction, used on both sides of the outer join it became, and again for the next subquery) compute
     * the same collection, so they are rendered once and their operator feeds every consumer. Without
     * this, a query of k scalar subqueries read its table a number of times exponential in k.
     */
    private final Map<Plan, Operator> rendered = new HashMap<>();

    private Operator render(Plan plan) {
        Operator op = rendered.get(plan);
        if (op == null) {
            op = renderNew(plan);
            rendered.put(plan, op);
        }
        return op;
    }

    private Operator renderNew(Plan plan) {
        return switch (plan) {
            case Plan.Get g -> get(g.id());
            case Plan.Constant c -> new ConstantOperator(c.rows(), desc.asOf());
            case Plan.MapFilterProject m -> new MfpOperator(render(m.input()), m.mfp(), m.mfp().bind(m.input().types(this::typesOf, "")));
            case Plan.Join j -> join(j);
            case Plan.Reduce r -> {
                List<DatumType> outTypes = r.types(this::typesOf, "");
                if (ReduceOperator.supports(r, outTypes)) {
                    yield new ReduceOperator(render(r.input()), r, outTypes, desc.asOf(), nonNegative(r.input()));
                }
                List<Expr> args = r.aggregates().stream().map(Plan.Aggregate::expr).filter(Objects::nonNull).toList();
                yield new GroupOperator("reduce", render(r.input()), ints(r.groupKey()), args,
                        (k, members) -> GroupFunctions.reduce(r, outTypes, k, members), desc.asOf());
            }
            case Plan.TopK k -> new GroupOperator("top_k", render(k.input()), ints(k.groupKey()), List.of(),
                    (key, members) -> GroupFunctions.topK(k, members), desc.asOf());
            case Plan.Window w -> new WindowOperator(render(w.input()), w, w.types(this::typesOf, ""), desc.asOf());
            case Plan.FlatMap f -> new FlatMapOperator(render(f.input()), f, f.types(this::typesOf, ""), f.input().types(this::typesOf, "").size());
            case Plan.Threshold t -> {
                int arity = t.input().types(this::typesOf, "").size();
                yield new GroupOperator("threshold", render(t.input()), range(0, arity), List.of(),
                        (key, members) -> {
                            Map<dev.tandem.row.Row, Long> rows = new HashMap<>();
                            for (GroupFunctions.Member m : members) {
                                if (m.mult() > 0) {
                                    rows.put(m.row(), m.mult());
                                }
                            }
                            return new GroupFunctions.Output(rows, null);
                        }, desc.asOf());
            }
            case Plan.Negate n -> new LinearOperator(LinearOperator.Kind.NEGATE, null, render(n.input()));
            case Plan.Union u -> new LinearOperator(LinearOperator.Kind.UNION, null, u.inputs().stream().map(this::render).toArray(Operator[]::new));
            case Plan.ArrangeBy a -> new LinearOperator(LinearOperator.Kind.ARRANGE, ints(a.key()), render(a.input()));
            case Plan.Iterate it -> iterate(it);
            case Plan.TemporalFilter f -> new TemporalFilterOperator(render(f.input()), f, f.input().types(this::typesOf, ""));
        };
    }

    /** The operator of {@code plan} alone, outside any object to build (a recursive step's instance). */
    Operator renderPlan(Plan plan) {
        return render(plan);
    }

    /** An iteration: its seed and every collection its step reads besides the work table are its inputs. */
    /**
     * Whether {@code plan}'s collection provably never holds a row of negative multiplicity at any time:
     * a source the dataflow was told is such (a table: the storage refuses a delete of a row it does not
     * hold), and what maps, filters, joins, unions or reduces such collections. Conservative: an imported
     * index, a negation or an iteration counts as possibly negative.
     */
    boolean nonNegative(Plan plan) {
        return switch (plan) {
            case Plan.Get g -> desc.sourceImports().containsKey(g.id()) && nonNegativeSources.test(g.id()) || builtPlans.containsKey(g.id()) && nonNegative(builtPlans.get(g.id()));
            case Plan.Constant c -> true;
            case Plan.MapFilterProject m -> nonNegative(m.input());
            case Plan.Join j -> j.inputs().stream().allMatch(this::nonNegative);
            case Plan.Union u -> u.inputs().stream().allMatch(this::nonNegative);
            case Plan.FlatMap f -> nonNegative(f.input());
            case Plan.ArrangeBy a -> nonNegative(a.input());
            case Plan.TemporalFilter t -> nonNegative(t.input());
            case Plan.Reduce r -> true;
            case Plan.TopK k -> true;
            case Plan.Threshold t -> true;
            default -> false;
        };
    }

    private Operator iterate(Plan.Iterate it) {
        Map<String, List<DatumType>> bodyTypes = new LinkedHashMap<>();
        bodyTypes.put(it.variable(), it.seed().types(this::typesOf, ""));
        List<Operator> inputs = new ArrayList<>();
        inputs.add(render(it.seed()));
        List<String> reads = new ArrayList<>();
        for (String id : it.step().dependencies()) {
            if (!id.equals(it.variable())) {
                reads.add(id);
                bodyTypes.put(id, typesOf(id));
                inputs.add(render(Plan.get(id)));
            }
        }
        return new IterateOperator(it, reads, bodyTypes, inputs.toArray(Operator[]::new));
    }

    private Operator get(String id) {
        Operator op = built.get(id);
        if (op != null) {
            return op;
        }
        if (desc.sourceImports().containsKey(id)) {
            return sources.computeIfAbsent(id, x -> new SourceOperator(x, workers));
        }
        if (desc.indexImports().containsKey(id)) {
            return imports.computeIfAbsent(id, x -> new ImportOperator(x, importSnapshots.apply(x), desc.asOf(), workers));
        }
        throw new IllegalStateException("unvalidated dataflow reads unknown id " + id);
    }

    /** A linear chain of binary joins; a right input that is an imported index on the step's key is read in place. */
    private Operator join(Plan.Join j) {
        List<Plan> inputs = j.inputs();
        int[] offsets = new int[inputs.size() + 1];
        for (int i = 0; i < inputs.size(); i++) {
            offsets[i + 1] = offsets[i] + inputs.get(i).types(this::typesOf, "").size();
        }
        Operator current = render(inputs.get(0));
        for (int i = 1; i < inputs.size(); i++) {
            List<Integer> leftKey = new ArrayList<>();
            List<Integer> rightKey = new ArrayList<>();
            List<int[]> residual = new ArrayList<>();
            for (List<Plan.JoinColumn> cls : j.on()) {
                Integer left = null;
                Integer right = null;
                List<Integer> positions = new ArrayList<>();
                boolean within = true;
                for (Plan.JoinColumn c : cls) {
                    if (c.input() > i) {
                        within = false;
                        continue;
                    }
                    positions.add(offsets[c.input()] + c.column());
                    if (c.input() < i && left == null) {
                        left = offsets[c.input()] + c.column();
                    }
                    if (c.input() == i && right == null) {
                        right = c.column();
                    }
                }
                if (left != null && right != null) {
                    leftKey.add(left);
                    rightKey.add(right);
                }
                if (within && positions.size() > 1) {
                    residual.add(positions.stream().mapToInt(Integer::intValue).toArray());
                }
            }
            Plan rightPlan = inputs.get(i);
            Supplier<SharedArrangement.Snapshot> arranged = null;
            if (rightPlan instanceof Plan.Get g && g.id() != null && !built.containsKey(g.id())) {
                DataflowDescription.IndexImport imp = desc.indexImports().get(g.id());
                if (imp != null && imp.key().equals(rightKey)) {
                    arranged = importSnapshots.apply(g.id());
                    arrangedImports.add(g.id());
                }
            }
            Operator right = arranged == null ? render(rightPlan) : null;
            current = new JoinOperator(current, right, ints(leftKey), ints(rightKey), residual, desc.asOf(), arranged, workers);
        }
        return current;
    }

    /** Index imports that some join reads in place as an arrangement. */
    final List<String> arrangedImports = new ArrayList<>();

    static int[] ints(List<Integer> list) {
        return list.stream().mapToInt(Integer::intValue).toArray();
    }

    private static int[] range(int from, int to) {
        int[] r = new int[to - from];
        for (int i = from; i < to; i++) {
            r[i - from] = i;
        }
        return r;
    }
}
