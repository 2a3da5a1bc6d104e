package dev.tandem.sql;

import static dev.tandem.sql.PgCoercion.typeOf;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;

/**
 * Translates Calcite's relational algebra into Tandem plans, one relational operator at a time; the expressions in
 * them are translated by a {@link RexTranslator}. Every operator it does not know is refused as "not supported: ...",
 * so a query either means in Tandem what it means in SQL or does not run.
 *
 * <p>SQL constructs without a Tandem operator of their own are built from the operators there are: joins
 * ({@link RelJoins}), aggregates ({@link RelAggregates}) and window functions ({@link RelWindows}) have their own
 * translations, as have set-returning functions and {@code LATERAL} ({@link RelLateral}); {@code EXCEPT [ALL]} and
 * {@code INTERSECT [ALL]} are unions with negation and threshold.
 */
final class RelTranslator {

    /** A plan and the Tandem types of its columns. */
    record Translated(Plan plan, List<DatumType> types) {

        /** A plan computing {@code exprs} over this one's rows (this one itself when they are its columns in order). */
        Translated project(List<Expr> exprs) {
            List<DatumType> out = new ArrayList<>();
            List<Integer> cols = new ArrayList<>();
            List<Expr> map = new ArrayList<>();
            for (Expr e : exprs) {
                out.add(typeOf(e, types));
                if (e instanceof Expr.Col c) {
                    cols.add(c.index());
                } else {
                    cols.add(types.size() + map.size());
                    map.add(e);
                }
            }
            boolean identity = map.isEmpty() && cols.size() == types.size();
            for (int i = 0; identity && i < cols.size(); i++) {
                identity = cols.get(i) == i;
            }
            if (identity) {
                return this;
            }
            return new Translated(new Plan.MapFilterProject(plan, new Mfp(map, List.of(), cols)), out);
        }
    }

    /** The error of a scalar subquery that yields several rows (SQLSTATE 21000). */
    static final String TWO_ROWS = "more than one row returned by a subquery used as an expression";

    private final RexTranslator rex;

    /** A translator whose plans' expressions {@code rex} translates. */
    RelTranslator(RexTranslator rex) {
        this.rex = rex;
    }

    /** A recursive item's iteration: its terms' columns, cast to the item's column types. */
    private Translated iterate(IterateRel it) {
        Plan seed = term(it.getLeft(), it.seedFields, it.types);
        Plan step = term(it.getRight(), it.stepFields, it.types);
        rex.cluster(it);
        return new Translated(new Plan.Iterate(seed, step, it.variable, it.all), it.types);
    }

    private Plan term(RelNode rel, List<Integer> fields, List<DatumType> types) {
        rex.cluster(rel);
        Translated t = rel(rel);
        List<Expr> exprs = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            int f = fields.get(i);
            exprs.add(PgCoercion.coerce(Expr.col(f), t.types().get(f), types.get(i)));
        }
        return t.project(exprs).plan();
    }

    Translated translate(RelNode rel) {
        rex.cluster(rel);
        return rel(rel);
    }

    private Translated rel(RelNode rel) {
        return switch (rel) {
            case TableScan scan -> {
                List<String> name = scan.getTable().getQualifiedName();
                yield new Translated(Plan.getByName(name.get(name.size() - 1)), typesOf(rel));
            }
            case Values values -> values(values);
            case Filter filter when InnerJoins.applies(filter) -> InnerJoins.translate(filter, this::rel, rex);
            case Filter filter when rex.allowsTemporalFilters() && TemporalFilters.readsTime(filter.getCondition()) ->
                    TemporalFilters.filter(filter.getCondition(), rel(filter.getInput()), rex);
            case Filter filter -> {
                Translated in = rel(filter.getInput());
                Expr cond = PgConstantFolding.condition(rex.rex(filter.getCondition(), in.types()));
                yield new Translated(new Plan.MapFilterProject(in.plan(), Mfp.filter(List.of(cond))), in.types());
            }
            case Project project when RexOver.containsOver(project.getProjects(), null) -> RelWindows.project(project, rel(project.getInput()), rex);
            case Project project -> {
                Translated in = rel(project.getInput());
                List<Expr> exprs = new ArrayList<>();
                for (RexNode e : project.getProjects()) {
                    exprs.add(rex.rex(e, in.types()));
                }
                yield in.project(exprs);
            }
            case Join join when InnerJoins.applies(join) -> InnerJoins.translate(join, this::rel, rex);
            case Join join -> RelJoins.join(join, rel(join.getLeft()), rel(join.getRight()), rex);
            case org.apache.calcite.rel.core.Correlate c -> RelLateral.correlate(c, rel(c.getLeft()), rex);
            case org.apache.calcite.rel.core.Uncollect u -> RelLateral.standalone(u, rex, this::rel);
            case org.apache.calcite.rel.core.TableFunctionScan s -> RelLateral.standalone(s, rex, this::rel);
            case Aggregate agg -> RelAggregates.aggregate(agg, rel(agg.getInput()), rex);
            case Union union -> setOp(union);
            case Minus minus -> setOp(minus);
            case Intersect intersect -> setOp(intersect);
            case Sort sort -> sort(sort);
            case IterateRel it -> iterate(it);
            case IterateRel.WorkTable w -> new Translated(Plan.get(w.variable), w.types);
            default -> throw SqlException.notSupported("the relational operator " + rel.getRelTypeName().replaceFirst("^Logical", ""));
        };
    }

    private static Translated values(Values values) {
        List<DatumType> types = typesOf(values);
        List<Row> rows = new ArrayList<>();
        for (List<RexLiteral> tuple : values.getTuples()) {
            List<Object> vals = new ArrayList<>();
            for (int i = 0; i < tuple.size(); i++) {
                PgCoercion.exactLiteral(tuple.get(i), SqlTypes.of(tuple.get(i).getType()));
                if (types.get(i) == DatumType.NUMERIC) {
                    PgCoercion.refuseCastLiteral(tuple.get(i));
                }
                vals.add(SqlTypes.convert(RexTranslator.literalValue(tuple.get(i)), types.get(i)));
            }
            rows.add(Row.pack(types, vals));
        }
        return new Translated(new Plan.Constant(rows, types), types);
    }

    // ------------------------------------------------------------------ set operations and sorts

    private Translated setOp(SetOp op) {
        List<Translated> inputs = new ArrayList<>();
        for (RelNode r : op.getInputs()) {
            inputs.add(rel(r));
        }
        int arity = inputs.get(0).types().size();
        List<DatumType> types = new ArrayList<>();
        for (int c = 0; c < arity; c++) {
            List<DatumType> col = new ArrayList<>();
            for (Translated t : inputs) {
                col.add(t.types().get(c));
            }
            types.add(PgCoercion.setOpType(col));
        }
        List<Plan> plans = new ArrayList<>();
        for (Translated t : inputs) {
            List<Expr> cast = new ArrayList<>();
            for (int c = 0; c < arity; c++) {
                cast.add(PgCoercion.coerce(Expr.col(c), t.types().get(c), types.get(c)));
            }
            Plan p = t.project(cast).plan();
            plans.add(op.all ? p : distinct(p, arity));
        }
        Plan result = switch (op) {
            case Union u -> new Plan.Union(plans);
            case Minus m -> {
                Plan acc = plans.get(0);
                for (int i = 1; i < plans.size(); i++) {
                    acc = new Plan.Threshold(new Plan.Union(List.of(acc, new Plan.Negate(plans.get(i)))));
                }
                yield acc;
            }
            case Intersect x -> {
                // min(a, b) = a - max(a - b, 0)
                Plan acc = plans.get(0);
                for (int i = 1; i < plans.size(); i++) {
                    Plan aLessB = new Plan.Threshold(new Plan.Union(List.of(acc, new Plan.Negate(plans.get(i)))));
                    acc = new Plan.Union(List.of(acc, new Plan.Negate(aLessB)));
                }
                yield acc;
            }
            default -> throw SqlException.notSupported(op.getRelTypeName());
        };
        if (!op.all && op instanceof Union) {
            result = distinct(result, arity);
        }
        return new Translated(result, types);
    }

    private static Plan distinct(Plan p, int arity) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < arity; i++) {
            all.add(i);
        }
        return new Plan.Reduce(p, all, List.of());
    }

    /** A sort inside a query: with a limit or offset it is a top-k, without one it does not change the multiset. */
    private Translated sort(Sort sort) {
        Translated in = rel(sort.getInput());
        if (sort.fetch == null && sort.offset == null) {
            return in;
        }
        Long limit = sort.fetch == null ? null : rex.count(sort.fetch, "LIMIT");
        long offset = sort.offset == null ? 0 : rex.count(sort.offset, "OFFSET");
        return new Translated(new Plan.TopK(in.plan(), List.of(), orderings(sort.getCollation()), limit, offset), in.types());
    }

    static List<Plan.Ordering> orderings(RelCollation collation) {
        List<Plan.Ordering> out = new ArrayList<>();
        for (RelFieldCollation f : collation.getFieldCollations()) {
            out.add(ordering(f.getFieldIndex(), f.getDirection(), f.nullDirection));
        }
        return out;
    }

    /** The ordering of {@code column} in {@code direction}: NULLs where {@code nulls} says, else last ascending and first descending. */
    static Plan.Ordering ordering(int column, RelFieldCollation.Direction direction, RelFieldCollation.NullDirection nulls) {
        boolean desc = direction.isDescending();
        boolean nullsLast = switch (nulls) {
            case LAST -> true;
            case FIRST -> false;
            default -> !desc;
        };
        return new Plan.Ordering(column, desc, nullsLast);
    }

    // ------------------------------------------------------------------ helpers

    /** The Tandem types of {@code rel}'s columns (a column of NULLs is a string's). */
    static List<DatumType> typesOf(RelNode rel) {
        List<DatumType> out = new ArrayList<>();
        for (RelDataTypeField f : rel.getRowType().getFieldList()) {
            DatumType t = SqlTypes.of(f.getType());
            out.add(t == null ? DatumType.STRING : t);
        }
        return out;
    }

    /** The conjuncts of a condition ({@code TRUE} has none). */
    static List<Expr> conjuncts(Expr e) {
        if (e instanceof Expr.Call c && c.func() == Func.AND) {
            List<Expr> out = new ArrayList<>();
            for (Expr a : c.args()) {
                out.addAll(conjuncts(a));
            }
            return out;
        }
        if (e instanceof Expr.Lit l && Boolean.TRUE.equals(l.value())) {
            return List.of();
        }
        return List.of(e);
    }
}
