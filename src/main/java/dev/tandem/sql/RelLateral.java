package dev.tandem.sql;

import static dev.tandem.sql.PgCoercion.typeOf;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.plan.TableFunctions;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.sql.RelTranslator.Translated;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.core.Uncollect;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;

/**
 * Translates set-returning functions in {@code FROM} and the {@code LATERAL} items that compute rows from the columns
 * of the items before them. A lateral item that is a function of its outer row alone (a chain of projections and
 * filters over {@code unnest} or {@code generate_series} of that row's values) becomes a {@link Plan.FlatMap} over
 * the outer rows followed by those projections and filters: each outer row's output is computed from that row, so a
 * maintained view pays for a changed row's outputs only. A lateral subquery over tables never gets here: Calcite's
 * decorrelation turns it into joins (see {@link LateralSubqueries}). Any other lateral item is refused.
 */
final class RelLateral {

    private RelLateral() {
    }

    /** A correlate: each row of {@code left} followed by each row its right side computes from it (NULLs when LEFT and none). */
    static Translated correlate(Correlate c, Translated left, RexTranslator rex) {
        JoinRelType type = c.getJoinType();
        if (type != JoinRelType.INNER && type != JoinRelType.LEFT) {
            throw SqlException.notSupported("this correlated subquery (its correlation could not be turned into a join)");
        }
        boolean keepEmpty = type == JoinRelType.LEFT;
        if (keepEmpty) {
            leftShape(c.getRight(), true);
        }
        return apply(c.getRight(), left, left.types().size(), c.getCorrelationId(), keepEmpty, rex, null);
    }

    /** A set-returning function (an {@code Uncollect} or a table function scan) outside any correlate: its rows alone. */
    static Translated standalone(RelNode rel, RexTranslator rex, Function<RelNode, Translated> translate) {
        List<DatumType> seedTypes = List.of(DatumType.INT64);
        Translated seed = new Translated(new Plan.Constant(List.of(Row.pack(seedTypes, List.of(0L))), seedTypes), seedTypes);
        Translated t = apply(rel, seed, 1, null, false, rex, translate);
        List<Expr> drop = new ArrayList<>();
        for (int i = 1; i < t.types().size(); i++) {
            drop.add(Expr.col(i));
        }
        return t.project(drop);
    }

    /** Whether {@code c}'s right side is a function of its outer row alone, which {@link #correlate} translates. */
    static boolean rowLocal(Correlate c) {
        return rowLocal(c.getRight());
    }

    private static boolean rowLocal(RelNode r) {
        return switch (r) {
            case Project p -> rowLocal(p.getInput());
            case Filter f -> rowLocal(f.getInput());
            case Uncollect u -> rowLocal(u.getInput());
            case Values v -> v.getTuples().size() == 1;
            case TableFunctionScan s -> s.getInputs().isEmpty();
            default -> false;
        };
    }

    /**
     * {@code r} computed from each row of {@code left} (whose first {@code prefix} columns are the outer row): the
     * outer row's columns followed by {@code r}'s. {@code translate} translates an uncorrelated subtree (only outside
     * a correlate, where the outer row is a single seed row); null inside one.
     */
    private static Translated apply(RelNode r, Translated left, int prefix, CorrelationId id, boolean keepEmpty, RexTranslator rex,
            Function<RelNode, Translated> translate) {
        return switch (r) {
            case Values v when v.getTuples().size() == 1 -> {
                List<Expr> exprs = prefixColumns(prefix);
                for (RexNode lit : v.getTuples().get(0)) {
                    exprs.add(rex.rex(lit, left.types()));
                }
                yield left.project(exprs);
            }
            case Project p -> {
                Translated in = apply(p.getInput(), left, prefix, id, keepEmpty, rex, translate);
                List<Expr> exprs = prefixColumns(prefix);
                for (RexNode e : p.getProjects()) {
                    exprs.add(rex.rex(shift(e, prefix, id), in.types()));
                }
                yield in.project(exprs);
            }
            case Filter f -> {
                Translated in = apply(f.getInput(), left, prefix, id, keepEmpty, rex, translate);
                Expr cond = PgConstantFolding.condition(rex.rex(shift(f.getCondition(), prefix, id), in.types()));
                yield new Translated(new Plan.MapFilterProject(in.plan(), Mfp.filter(List.of(cond))), in.types());
            }
            case Uncollect u -> unnest(u, apply(u.getInput(), left, prefix, id, keepEmpty, rex, translate), prefix, keepEmpty);
            case TableFunctionScan s when s.getInputs().isEmpty() -> series(s, left, prefix, id, keepEmpty, rex);
            default -> {
                if (translate != null && id == null) {
                    Translated sub = translate.apply(r);
                    List<DatumType> types = new ArrayList<>(left.types());
                    types.addAll(sub.types());
                    yield new Translated(new Plan.Join(List.of(left.plan(), sub.plan()), List.of()), types);
                }
                throw SqlException.notSupported("LATERAL with " + r.getRelTypeName().replaceFirst("^Logical", "").toLowerCase(Locale.ROOT)
                        + " that could not be turned into joins (over a set-returning function of the outer row a LATERAL item may only"
                        + " project and filter; over tables it may also aggregate, group, DISTINCT and ORDER BY ... LIMIT n with n > 0)");
            }
        };
    }

    /** {@code unnest} of the one array column after the outer row's columns of {@code in}: the outer row, then the element (and its position). */
    private static Translated unnest(Uncollect u, Translated in, int prefix, boolean keepEmpty) {
        if (in.types().size() != prefix + 1) {
            throw SqlException.notSupported("unnest of several arrays at once (unnest each in its own FROM item)");
        }
        DatumType array = in.types().get(prefix);
        if (!array.isArray()) {
            throw SqlException.notSupported("unnest of a " + SqlTypes.pgName(array) + " (unnest takes an array)");
        }
        Plan.TableFunc func = u.withOrdinality ? Plan.TableFunc.UNNEST_ORDINALITY : Plan.TableFunc.UNNEST;
        List<DatumType> types = new ArrayList<>(in.types());
        types.addAll(TableFunctions.types(func, List.of(array), ""));
        Translated flat = new Translated(new Plan.FlatMap(in.plan(), func, List.of(Expr.col(prefix)), keepEmpty), types);
        List<Expr> keep = prefixColumns(prefix);
        for (int i = prefix + 1; i < types.size(); i++) {
            keep.add(Expr.col(i));
        }
        return flat.project(keep);
    }

    /** {@code generate_series} of values computed from the outer row of {@code left}: the outer row, then the value. */
    private static Translated series(TableFunctionScan s, Translated left, int prefix, CorrelationId id, boolean keepEmpty, RexTranslator rex) {
        if (!(s.getCall() instanceof RexCall call) || call.getOperator() != SetReturningFunctions.GENERATE_SERIES) {
            throw SqlException.notSupported("the table function " + s.getCall());
        }
        DatumType type = RelTranslator.typesOf(s).get(0);
        if (type != DatumType.INT64 && type != DatumType.NUMERIC && type != DatumType.TIMESTAMP) {
            throw SqlException.notSupported("generate_series of " + SqlTypes.pgName(type) + " (of dates and timestamps with time zone its"
                    + " steps depend on the session's time zone; it counts integers, numerics and timestamps)");
        }
        List<Expr> args = new ArrayList<>();
        for (int i = 0; i < call.getOperands().size(); i++) {
            Expr e = rex.rex(shift(call.getOperands().get(i), prefix, id), left.types());
            DatumType t = typeOf(e, left.types());
            DatumType want = type == DatumType.TIMESTAMP && i == 2 ? DatumType.INTERVAL : type;
            args.add(t == want ? e : PgCoercion.coerce(e, t, want));
        }
        List<DatumType> types = new ArrayList<>(left.types());
        types.add(type);
        return new Translated(new Plan.FlatMap(left.plan(), Plan.TableFunc.GENERATE_SERIES, args, keepEmpty), types);
    }

    /** {@code e} over the columns after {@code prefix}, its references to correlation {@code id} made references to the outer row's columns. */
    private static RexNode shift(RexNode e, int prefix, CorrelationId id) {
        return e.accept(new RexShuttle() {
            @Override
            public RexNode visitInputRef(RexInputRef ref) {
                return new RexInputRef(ref.getIndex() + prefix, ref.getType());
            }

            @Override
            public RexNode visitFieldAccess(RexFieldAccess access) {
                if (access.getReferenceExpr() instanceof RexCorrelVariable v) {
                    if (!v.id.equals(id)) {
                        throw SqlException.notSupported("a LATERAL item that reads a column of a query further out");
                    }
                    return new RexInputRef(access.getField().getIndex(), access.getType());
                }
                return super.visitFieldAccess(access);
            }

            @Override
            public RexNode visitCorrelVariable(RexCorrelVariable v) {
                throw SqlException.notSupported("a LATERAL item that reads a whole row of the FROM items before it");
            }
        });
    }

    /**
     * Refuses a {@code LEFT JOIN LATERAL} whose right side could drop the outer row or compute a column of the NULLs
     * it is padded with: a condition, or a projection above the function that computes rather than picks columns.
     */
    private static void leftShape(RelNode r, boolean aboveFunction) {
        switch (r) {
            case Project p -> {
                if (aboveFunction && !p.getProjects().stream().allMatch(e -> e instanceof RexInputRef
                        || e.isA(org.apache.calcite.sql.SqlKind.CAST) && ((RexCall) e).getOperands().get(0) instanceof RexInputRef)) {
                    throw SqlException.notSupported("LEFT JOIN LATERAL of a subquery that computes columns (its NULL-padded rows would compute"
                            + " them); select the set-returning function's columns and compute above the join");
                }
                leftShape(p.getInput(), aboveFunction);
            }
            case Uncollect u -> leftShape(u.getInput(), false);
            case Filter f -> throw SqlException.notSupported("LEFT JOIN LATERAL with a condition (only ON true, and no WHERE in the lateral"
                    + " subquery)");
            default -> {
            }
        }
    }

    private static List<Expr> prefixColumns(int prefix) {
        List<Expr> out = new ArrayList<>();
        for (int i = 0; i < prefix; i++) {
            out.add(Expr.col(i));
        }
        return out;
    }
}
