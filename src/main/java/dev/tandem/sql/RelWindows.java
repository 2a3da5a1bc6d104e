package dev.tandem.sql;

import static dev.tandem.sql.PgCoercion.typeOf;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.sql.RelTranslator.Translated;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexWindow;
import org.apache.calcite.sql.SqlKind;

/**
 * The translation of a projection holding window calls ({@code f(...) OVER (PARTITION BY ... ORDER BY ...)}) into
 * {@link Plan.Window} operators; what those do not compute (other functions, frames, DISTINCT, IGNORE NULLS) is refused.
 */
final class RelWindows {

    private RelWindows() {
    }

    /**
     * {@code project} over its translated input {@code in}: the input, extended with the window keys that are not plain
     * columns, then one {@link Plan.Window} per distinct window (PARTITION BY and ORDER BY), each adding its functions'
     * columns, then the projection over those columns.
     */
    static Translated project(Project project, Translated in, RexTranslator rex) {
        List<RexOver> overs = new ArrayList<>();
        for (RexNode e : project.getProjects()) {
            collectOvers(e, overs);
        }
        List<DatumType> types = new ArrayList<>(in.types());
        List<Expr> extra = new ArrayList<>();
        Map<String, Integer> keyColumns = new HashMap<>();
        Function<RexNode, Integer> columnOf = node -> {
            if (node instanceof RexInputRef ref) {
                return ref.getIndex();
            }
            return keyColumns.computeIfAbsent(node.toString(), d -> {
                Expr e = rex.rex(node, in.types());
                extra.add(e);
                types.add(typeOf(e, in.types()));
                return types.size() - 1;
            });
        };
        Map<String, List<RexOver>> windows = new LinkedHashMap<>();
        Map<String, List<Integer>> partitions = new HashMap<>();
        Map<String, List<Plan.Ordering>> orders = new HashMap<>();
        for (RexOver over : overs) {
            RexWindow w = over.getWindow();
            List<Integer> partition = new ArrayList<>();
            for (RexNode k : w.partitionKeys) {
                partition.add(columnOf.apply(k));
            }
            List<Plan.Ordering> order = new ArrayList<>();
            for (RexFieldCollation fc : w.orderKeys) {
                order.add(RelTranslator.ordering(columnOf.apply(fc.left), fc.getDirection(), fc.getNullDirection()));
            }
            String spec = partition + " " + order;
            partitions.put(spec, partition);
            orders.put(spec, order);
            windows.computeIfAbsent(spec, x -> new ArrayList<>()).add(over);
        }
        Plan plan = extra.isEmpty() ? in.plan() : new Plan.MapFilterProject(in.plan(), new Mfp(extra, List.of(), null));
        List<DatumType> baseTypes = List.copyOf(types);
        for (Map.Entry<String, List<RexOver>> e : windows.entrySet()) {
            List<Plan.WindowFunc> funcs = new ArrayList<>();
            for (RexOver over : e.getValue()) {
                if (rex.hasOverColumn(over)) {
                    continue;
                }
                Plan.WindowFunc f = windowFunc(over, baseTypes, !orders.get(e.getKey()).isEmpty(), rex);
                funcs.add(f);
                rex.overColumn(over, types.size());
                types.add(f.expr() == null || f.kind() == Plan.WindowKind.COUNT ? DatumType.INT64 : typeOf(f.expr(), baseTypes));
            }
            if (!funcs.isEmpty()) {
                plan = new Plan.Window(plan, partitions.get(e.getKey()), orders.get(e.getKey()), funcs);
            }
        }
        Translated windowed = new Translated(plan, List.copyOf(types));
        List<Expr> exprs = new ArrayList<>();
        for (RexNode e : project.getProjects()) {
            exprs.add(rex.rex(e, windowed.types()));
        }
        return windowed.project(exprs);
    }

    private static void collectOvers(RexNode node, List<RexOver> out) {
        if (node instanceof RexOver over) {
            out.add(over);
        } else if (node instanceof RexCall call) {
            for (RexNode operand : call.getOperands()) {
                collectOvers(operand, out);
            }
        }
    }

    /** One window call as a plan function; what the window operator does not compute is refused (0A000). */
    private static Plan.WindowFunc windowFunc(RexOver over, List<DatumType> in, boolean ordered, RexTranslator rex) {
        String name = over.getOperator().getName().toLowerCase(Locale.ROOT);
        if (over.isDistinct()) {
            throw SqlException.notSupported(name + "(DISTINCT ...) OVER ...");
        }
        if (over.ignoreNulls()) {
            throw SqlException.notSupported(name + "(...) IGNORE NULLS OVER ...");
        }
        List<RexNode> args = over.getOperands();
        Expr arg = args.isEmpty() ? null : rex.rex(args.get(0), in);
        DatumType argType = arg == null ? null : typeOf(arg, in);
        return switch (over.getKind()) {
            case ROW_NUMBER -> new Plan.WindowFunc(Plan.WindowKind.ROW_NUMBER, null, 0);
            case RANK -> new Plan.WindowFunc(Plan.WindowKind.RANK, null, 0);
            case DENSE_RANK -> new Plan.WindowFunc(Plan.WindowKind.DENSE_RANK, null, 0);
            case LAG, LEAD -> lagOrLead(over, name, arg, rex);
            case COUNT, SUM, SUM0, MIN, MAX -> {
                refuseFrame(over, name, ordered);
                if (over.getKind() == SqlKind.COUNT) {
                    yield new Plan.WindowFunc(Plan.WindowKind.COUNT, arg, 0);
                }
                if ((over.getKind() == SqlKind.MIN || over.getKind() == SqlKind.MAX) && argType == DatumType.BOOL) {
                    throw new SqlException(SqlException.UNDEFINED_FUNCTION, "function " + name + "(boolean) does not exist");
                }
                boolean sum = over.getKind() == SqlKind.SUM || over.getKind() == SqlKind.SUM0;
                if (sum && argType != DatumType.INT64 && argType != DatumType.FLOAT64 && argType != DatumType.NUMERIC) {
                    throw SqlException.notSupported("sum of " + SqlTypes.pgName(argType));
                }
                // $SUM0 comes from SUM(x) OVER, which Calcite writes as CASE WHEN COUNT(x) OVER > 0 THEN $SUM0(x) OVER:
                // the plan's sum is NULL exactly when that count is 0, so the CASE keeps its meaning
                yield new Plan.WindowFunc(sum ? Plan.WindowKind.SUM : over.getKind() == SqlKind.MIN ? Plan.WindowKind.MIN : Plan.WindowKind.MAX,
                        arg, 0);
            }
            default -> throw SqlException.notSupported("the window function " + name
                    + " (supported: row_number, rank, dense_rank, lag, lead, count, sum, min, max)");
        };
    }

    /** {@code lag} or {@code lead} of {@code arg} by a constant offset (a negative one turns one into the other), without a default. */
    private static Plan.WindowFunc lagOrLead(RexOver over, String name, Expr arg, RexTranslator rex) {
        List<RexNode> args = over.getOperands();
        long offset = 1;
        if (args.size() > 1) {
            String refusal = name + " with an offset that is not an integer constant";
            if (!(rex.constant(args.get(1), refusal) instanceof Number n)) {
                throw SqlException.notSupported(refusal);
            }
            offset = n.longValue();
        }
        if (args.size() > 2 && !(args.get(2) instanceof RexLiteral l && l.isNull())) {
            throw SqlException.notSupported(name + " with a default value (its third argument)");
        }
        boolean lag = (over.getKind() == SqlKind.LAG) == (offset >= 0);
        return new Plan.WindowFunc(lag ? Plan.WindowKind.LAG : Plan.WindowKind.LEAD, arg, Math.abs(offset));
    }

    /**
     * Refuses an aggregate's frame other than the default: RANGE UNBOUNDED PRECEDING to CURRENT ROW
     * (with peers) when ordered, the whole partition when not.
     */
    private static void refuseFrame(RexOver over, String name, boolean ordered) {
        RexWindow w = over.getWindow();
        boolean fromStart = w.getLowerBound().isUnbounded() && w.getLowerBound().isPreceding();
        boolean toEnd = w.getUpperBound().isUnbounded() && w.getUpperBound().isFollowing();
        boolean toPeers = w.getUpperBound().isCurrentRow() && !w.isRows();
        boolean supported = fromStart && (ordered ? toPeers : toEnd || toPeers);
        if (!supported) {
            throw SqlException.notSupported("the window frame " + (w.isRows() ? "ROWS" : "RANGE") + " BETWEEN " + w.getLowerBound()
                    + " AND " + w.getUpperBound() + " of " + name + " (supported: the default frame, RANGE BETWEEN UNBOUNDED PRECEDING"
                    + " AND CURRENT ROW, or the whole partition without ORDER BY)");
        }
    }
}
