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
            if (byValue(w)) {
                if (w.orderKeys.size() != 1) {
                    throw new SqlException(SqlState.WINDOWING_ERROR, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");
                }
                RexFieldCollation fc = w.orderKeys.get(0);
                int col = columnOf.apply(fc.left);
                DatumType key = types.get(col);
                // the offset is added in the type PostgreSQL's in_range compares in: an integer's as a numeric (no overflow), a date's as a timestamp
                DatumType as = switch (key) {
                    case INT64, NUMERIC -> DatumType.NUMERIC;
                    case DATE, TIMESTAMP -> DatumType.TIMESTAMP;
                    case TIMESTAMPTZ -> DatumType.TIMESTAMPTZ;
                    default -> throw SqlException.notSupported("RANGE with offset PRECEDING/FOLLOWING for column type " + SqlTypes.pgName(key)
                            + " (supported: integers, numeric, date, timestamp, timestamptz)");
                };
                if (key == DatumType.INT64) {
                    for (org.apache.calcite.rex.RexWindowBound b : List.of(w.getLowerBound(), w.getUpperBound())) {
                        if (offset(b) && rex.constant(b.getOffset(), "a RANGE offset (" + b + ") that is not a constant") instanceof Number n
                                && new java.math.BigDecimal(n.toString()).stripTrailingZeros().scale() > 0) {
                            throw SqlException.notSupported("RANGE with offset PRECEDING/FOLLOWING for column type bigint and offset type numeric");
                        }
                    }
                }
                int keyCol = key == as ? col : keyColumns.computeIfAbsent("(" + col + ")::" + as, d -> {
                    extra.add(Expr.cast(Expr.col(col), as));
                    types.add(as);
                    return types.size() - 1;
                });
                order.add(RelTranslator.ordering(keyCol, fc.getDirection(), fc.getNullDirection()));
            } else {
                for (RexFieldCollation fc : w.orderKeys) {
                    order.add(RelTranslator.ordering(columnOf.apply(fc.left), fc.getDirection(), fc.getNullDirection()));
                }
            }
            String spec = partition + " " + order + (byValue(w) ? " by value" : "");
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
                List<Plan.Ordering> order = orders.get(e.getKey());
                Plan.WindowFunc f = windowFunc(over, baseTypes, byValue(over.getWindow()) ? order.get(0) : null, rex);
                funcs.add(f);
                rex.overColumn(over, types.size());
                types.add(switch (f.kind()) {
                    case PERCENT_RANK, CUME_DIST, VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP -> DatumType.FLOAT64;
                    case ROW_NUMBER, RANK, DENSE_RANK, NTILE, COUNT -> DatumType.INT64;
                    default -> typeOf(f.expr(), baseTypes);
                });
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

    /** Whether a window's frame is RANGE with an offset bound ({@code RANGE 2 PRECEDING}). */
    private static boolean byValue(RexWindow w) {
        return !w.isRows() && (offset(w.getLowerBound()) || offset(w.getUpperBound()));
    }

    private static boolean offset(org.apache.calcite.rex.RexWindowBound b) {
        return !b.isUnbounded() && !b.isCurrentRow();
    }

    /**
     * One window call as a plan function, {@code key} its window's one ordering when its frame is RANGE with an offset;
     * what the window operator does not compute is refused (0A000).
     */
    private static Plan.WindowFunc windowFunc(RexOver over, List<DatumType> in, Plan.Ordering key, RexTranslator rex) {
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
            case PERCENT_RANK -> new Plan.WindowFunc(Plan.WindowKind.PERCENT_RANK, null, 0);
            case CUME_DIST -> new Plan.WindowFunc(Plan.WindowKind.CUME_DIST, null, 0);
            case NTILE -> new Plan.WindowFunc(Plan.WindowKind.NTILE, null, positiveConstant(args.get(0), name, rex));
            case LAG, LEAD -> lagOrLead(over, name, arg, in, rex);
            case FIRST_VALUE -> new Plan.WindowFunc(Plan.WindowKind.FIRST_VALUE, arg, 0, null, frame(over, name, key, in, rex));
            case LAST_VALUE -> new Plan.WindowFunc(Plan.WindowKind.LAST_VALUE, arg, 0, null, frame(over, name, key, in, rex));
            case NTH_VALUE -> new Plan.WindowFunc(Plan.WindowKind.NTH_VALUE, arg, positiveConstant(args.get(1), name, rex), null,
                    frame(over, name, key, in, rex));
            case COUNT, SUM, SUM0, MIN, MAX -> {
                Plan.Frame frame = frame(over, name, key, in, rex);
                if (over.getKind() == SqlKind.COUNT) {
                    yield new Plan.WindowFunc(Plan.WindowKind.COUNT, arg, 0, null, frame);
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
                        arg, 0, null, frame);
            }
            default -> {
                if (over.getOperator() instanceof WindowVariance variance) {
                    if (argType != DatumType.INT64 && argType != DatumType.FLOAT64) {
                        throw SqlException.notSupported(name + " of " + SqlTypes.pgName(argType) + " over a window (supported: of integers and"
                                + " double precision)");
                    }
                    yield new Plan.WindowFunc(variance.kind, arg, 0, null, frame(over, name, key, in, rex));
                }
                throw SqlException.notSupported("the window function " + name + " (supported: row_number, rank, dense_rank, percent_rank,"
                        + " cume_dist, ntile, lag, lead, first_value, last_value, nth_value, count, sum, min, max, avg, var_pop, var_samp,"
                        + " variance, stddev_pop, stddev_samp, stddev)");
            }
        };
    }

    /** ntile's and nth_value's count: a positive integer constant (anything else is refused). */
    private static long positiveConstant(RexNode node, String name, RexTranslator rex) {
        String refusal = name + " with a count that is not a positive integer constant";
        if (!(rex.constant(node, refusal) instanceof Number n) || n.longValue() <= 0 || n.doubleValue() != n.longValue()) {
            throw SqlException.notSupported(refusal);
        }
        return n.longValue();
    }

    /** {@code lag} or {@code lead} of {@code arg} by a constant offset (a negative one turns one into the other), with an optional default. */
    private static Plan.WindowFunc lagOrLead(RexOver over, String name, Expr arg, List<DatumType> in, RexTranslator rex) {
        List<RexNode> args = over.getOperands();
        long offset = 1;
        if (args.size() > 1) {
            String refusal = name + " with an offset that is not an integer constant";
            if (!(rex.constant(args.get(1), refusal) instanceof Number n)) {
                throw SqlException.notSupported(refusal);
            }
            offset = n.longValue();
        }
        Expr fallback = null;
        if (args.size() > 2 && !(args.get(2) instanceof RexLiteral l && l.isNull())) {
            fallback = rex.rex(args.get(2), in);
            DatumType want = typeOf(arg, in);
            if (typeOf(fallback, in) != want) {
                fallback = Expr.cast(fallback, want);
            }
        }
        boolean lag = (over.getKind() == SqlKind.LAG) == (offset >= 0);
        return new Plan.WindowFunc(lag ? Plan.WindowKind.LAG : Plan.WindowKind.LEAD, arg, Math.abs(offset), fallback, null);
    }

    /**
     * The frame of a framed function: ROWS with UNBOUNDED, CURRENT ROW or constant offset bounds, RANGE with UNBOUNDED,
     * CURRENT ROW or constant offset bounds (an offset over {@code key}, the window's one ordering), with any EXCLUDE.
     */
    private static Plan.Frame frame(RexOver over, String name, Plan.Ordering key, List<DatumType> in, RexTranslator rex) {
        RexWindow w = over.getWindow();
        Plan.Exclude exclude = w.getExclude() == null ? Plan.Exclude.NO_OTHERS : switch (w.getExclude()) {
            case EXCLUDE_NO_OTHER -> Plan.Exclude.NO_OTHERS;
            case EXCLUDE_CURRENT_ROW -> Plan.Exclude.CURRENT_ROW;
            case EXCLUDE_GROUP -> Plan.Exclude.GROUP;
            case EXCLUDE_TIES -> Plan.Exclude.TIES;
        };
        if (w.getLowerBound().isUnbounded() && w.getLowerBound().isFollowing()
                || w.getUpperBound().isUnbounded() && w.getUpperBound().isPreceding()) {
            throw SqlException.notSupported("the window frame " + w.getLowerBound() + " AND " + w.getUpperBound() + " of " + name);
        }
        int from = direction(w.getLowerBound());
        int to = direction(w.getUpperBound());
        if (from == 0 && to < 0 || from > 0 && to <= 0) {
            // PostgreSQL refuses a frame starting at or after the current row and ending before it
            throw SqlException.notSupported("the window frame " + w.getLowerBound() + " AND " + w.getUpperBound() + " of " + name);
        }
        if (!w.isRows()) {
            Long start = w.getLowerBound().isUnbounded() ? null : 0L;
            Long end = w.getUpperBound().isUnbounded() ? null : 0L;
            return new Plan.Frame(false, start, end, exclude, valueBound(w.getLowerBound(), key, in, rex),
                    valueBound(w.getUpperBound(), key, in, rex));
        }
        return new Plan.Frame(true, bound(w.getLowerBound(), name), bound(w.getUpperBound(), name), exclude);
    }

    /** A bound's direction: -1 PRECEDING, 0 CURRENT ROW, 1 FOLLOWING (UNBOUNDED ones by their side). */
    private static int direction(org.apache.calcite.rex.RexWindowBound b) {
        return b.isCurrentRow() ? 0 : b.isPreceding() ? -1 : 1;
    }

    /** A ROWS bound as a signed distance (null when unbounded). */
    private static Long bound(org.apache.calcite.rex.RexWindowBound b, String name) {
        if (b.isUnbounded()) {
            return null;
        }
        if (b.isCurrentRow()) {
            return 0L;
        }
        if (!(b.getOffset() instanceof RexLiteral l) || !(l.getValue() instanceof java.math.BigDecimal d) || d.signum() < 0
                || d.stripTrailingZeros().scale() > 0) {
            throw SqlException.notSupported("the window frame bound " + b + " of " + name + " (supported: a non-negative integer constant)");
        }
        long n = d.longValueExact();
        return b.isPreceding() ? -n : n;
    }

    /**
     * A RANGE offset bound as the value it stands for on the current row: the ordering column {@code key} less the offset
     * for PRECEDING (plus it descending), plus it for FOLLOWING; null for UNBOUNDED and CURRENT ROW. The offset is a
     * constant: an integer over an integer column, a number over a numeric one, an interval over a date or a timestamp
     * (without months or days over a timestamptz, whose days PostgreSQL counts in the session's zone).
     */
    private static Expr valueBound(org.apache.calcite.rex.RexWindowBound b, Plan.Ordering key, List<DatumType> in, RexTranslator rex) {
        if (!offset(b)) {
            return null;
        }
        String refusal = "a RANGE offset (" + b + ") that is not a constant";
        Object v = rex.constant(b.getOffset(), refusal);
        if (v == null) {
            throw new SqlException(SqlState.NULL_VALUE_NOT_ALLOWED, "frame " + (b.isPreceding() ? "starting" : "ending") + " offset must not be null");
        }
        DatumType type = in.get(key.col());
        Expr offset;
        boolean negative;
        if (type == DatumType.NUMERIC) {
            if (!(v instanceof Number n)) {
                throw SqlException.notSupported("a RANGE offset of this type over a numeric or integer column");
            }
            java.math.BigDecimal d = n instanceof java.math.BigDecimal big ? big : new java.math.BigDecimal(n.toString());
            negative = d.signum() < 0;
            offset = Expr.lit(d, DatumType.NUMERIC);
        } else {
            if (!(v instanceof dev.tandem.row.Interval i)) {
                throw SqlException.notSupported("a RANGE offset that is not an interval over a date or timestamp column");
            }
            if (type == DatumType.TIMESTAMPTZ && (i.months() != 0 || i.days() != 0)) {
                throw SqlException.notSupported("a RANGE offset with days or months over a timestamptz column (supported: hours, minutes, seconds)");
            }
            negative = i.compareTo(new dev.tandem.row.Interval(0, 0, 0)) < 0;
            offset = Expr.lit(i, DatumType.INTERVAL);
        }
        if (negative) {
            throw new SqlException(SqlState.INVALID_PRECEDING_OR_FOLLOWING_SIZE, "invalid preceding or following size in window function");
        }
        boolean minus = b.isPreceding() != key.desc();
        return Expr.call(minus ? dev.tandem.expr.Func.SUB : dev.tandem.expr.Func.ADD, Expr.col(key.col()), offset);
    }
}
