package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;

/**
 * Random window plans (every function, default, ROWS and RANGE frames, RANGE frames bounded by values, every EXCLUDE,
 * lag/lead defaults) over random update
 * streams (a first write of up to 40 rows, then inserts, duplicate rows, retractions, NULLs, ties, arguments that
 * fail to evaluate), rendered with one and two workers: at {@code as_of} and after every
 * later write the export equals the naive evaluator.
 */
class WindowOperatorProperties {

    private static final List<DatumType> TYPES = List.of(DatumType.INT64, DatumType.INT64, DatumType.FLOAT64);

    @Property(tries = 60, shrinking = ShrinkingMode.OFF)
    void windowExportsEqualTheNaiveEvaluatorAtEveryTime(@ForAll long seed) {
        check(seed, false);
    }

    /** As above, over windows of one ordering whose framed functions' RANGE frames are bounded by values. */
    @Property(tries = 60, shrinking = ShrinkingMode.OFF)
    void valueBoundedWindowExportsEqualTheNaiveEvaluatorAtEveryTime(@ForAll long seed) {
        check(seed, true);
    }

    private static void check(long seed, boolean valueBounds) {
        Random rnd = new Random(seed);
        Plan plan = randomWindow(rnd, valueBounds);
        int workers = 1 + rnd.nextInt(2);
        String json = PlanJson.write(plan).toString();
        try (RenderHarness h = new RenderHarness(workers)) {
            h.createTable("u1", TYPES);
            Map<Row, Long> contents = new HashMap<>();
            List<Long> times = new ArrayList<>();
            times.add(h.write("u1", randomWrite(rnd, contents, 1 + rnd.nextInt(40))));
            Dataflow df = h.start("e1", plan, List.of(0), times.get(0));
            boolean retracted = false;
            for (int i = 0; i < 5; i++) {
                Map<Row, Long> w = randomWrite(rnd, contents, 1 + rnd.nextInt(6));
                retracted |= w.values().stream().anyMatch(d -> d < 0);
                times.add(h.write("u1", w));
            }
            h.awaitSealed(df, times.get(times.size() - 1));
            var export = df.exports().get(0);
            boolean anyErrors = false;
            for (long t : times) {
                PlanEvaluator.Result expected = h.expected(plan, t);
                assertThat(RenderHarness.read(export, t)).as("W=%d at %d, writes at %s, plan %s", workers, t, times, json).isEqualTo(expected);
                anyErrors |= !expected.errors().isEmpty();
            }
            Statistics.label("retractions").collect(retracted);
            Statistics.label("errors").collect(anyErrors);
        }
        Statistics.label("retractions").coverage(c -> c.check(true).percentage(p -> p >= 50));
    }

    private static Map<Row, Long> randomWrite(Random rnd, Map<Row, Long> contents, int n) {
        Map<Row, Long> diffs = new HashMap<>();
        for (int i = 0; i < n; i++) {
            if (!contents.isEmpty() && rnd.nextInt(3) == 0) {
                List<Row> present = new ArrayList<>(contents.keySet());
                present.sort(null);
                Row r = present.get(rnd.nextInt(present.size()));
                if (diffs.containsKey(r)) {
                    continue;
                }
                long d = -(1 + rnd.nextInt((int) Math.min(2, contents.get(r))));
                diffs.put(r, d);
            } else {
                Long g = (long) rnd.nextInt(3);
                Long v = rnd.nextInt(6) == 0 ? null : (long) (rnd.nextInt(7) - 3);
                Double f = rnd.nextInt(6) == 0 ? null : (double) (rnd.nextInt(9) - 4) / 2;
                Row r = Row.pack(TYPES, java.util.Arrays.asList(g, v, f));
                if (diffs.getOrDefault(r, 0L) < 0) {
                    continue;
                }
                diffs.merge(r, 1L + rnd.nextInt(2), Long::sum);
            }
        }
        diffs.forEach((r, d) -> contents.merge(r, d, (a, b) -> a + b == 0 ? null : a + b));
        return diffs;
    }

    /**
     * The default frame a third of the time; otherwise a random ROWS frame or a RANGE frame of UNBOUNDED and CURRENT ROW
     * bounds; each with a random EXCLUDE half the time.
     */
    static Plan.Frame randomFrame(Random rnd) {
        Plan.Exclude exclude = rnd.nextBoolean() ? Plan.Exclude.NO_OTHERS : Plan.Exclude.values()[rnd.nextInt(Plan.Exclude.values().length)];
        int pick = rnd.nextInt(3);
        if (pick == 0) {
            return new Plan.Frame(false, null, 0L, exclude);
        }
        if (pick == 1 && rnd.nextBoolean()) {
            return new Plan.Frame(false, rnd.nextBoolean() ? null : 0L, rnd.nextBoolean() ? null : 0L, exclude);
        }
        Long start = rnd.nextInt(4) == 0 ? null : (long) (rnd.nextInt(5) - 3);
        Long end = rnd.nextInt(4) == 0 ? null : (start == null ? rnd.nextInt(5) - 2 : start + rnd.nextInt(4));
        return new Plan.Frame(true, start, end, exclude);
    }

    /**
     * A RANGE frame bounded by values over ordering column {@code col}: each bound unbounded (one time in six), the
     * current row's peers (one in six) or the column plus -2 to 2 ({@code RANGE n PRECEDING|FOLLOWING}), with a random
     * EXCLUDE half the time.
     */
    static Plan.Frame valueFrame(Random rnd, int col) {
        Plan.Frame f = randomFrame(rnd);
        Long start = rnd.nextInt(6) == 0 ? null : 0L;
        Long end = rnd.nextInt(6) == 0 ? null : 0L;
        Expr startAt = start == null || rnd.nextInt(5) == 0 ? null : plus(rnd, col);
        Expr endAt = end == null || rnd.nextInt(5) == 0 ? null : plus(rnd, col);
        return new Plan.Frame(false, start, end, f.exclude(), startAt, endAt);
    }

    private static Expr plus(Random rnd, int col) {
        int k = rnd.nextInt(5) - 2;
        Expr offset = TYPES.get(col) == DatumType.FLOAT64 ? Expr.lit(k / 2.0, DatumType.FLOAT64) : Expr.lit((long) k, DatumType.INT64);
        return Expr.call(Func.ADD, Expr.col(col), offset);
    }

    private static Plan randomWindow(Random rnd, boolean valueBounds) {
        List<Integer> partition = rnd.nextBoolean() ? List.of(0) : List.of();
        List<Plan.Ordering> order = new ArrayList<>();
        int orderings = valueBounds ? 1 : rnd.nextInt(3);
        for (int i = 0; i < orderings; i++) {
            boolean desc = rnd.nextBoolean();
            order.add(new Plan.Ordering(1 + rnd.nextInt(2), desc, rnd.nextBoolean()));
        }
        List<Plan.WindowFunc> funcs = new ArrayList<>();
        int count = 1 + rnd.nextInt(3);
        for (int i = 0; i < count; i++) {
            Plan.WindowKind k = Plan.WindowKind.values()[rnd.nextInt(Plan.WindowKind.values().length)];
            Expr arg = switch (rnd.nextInt(5)) {
                case 0 -> Expr.col(2);
                case 1 -> Expr.call(Func.DIV, Expr.col(0), Expr.col(1));
                default -> Expr.col(1);
            };
            Expr e = switch (k) {
                case ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE -> null;
                case COUNT -> rnd.nextBoolean() ? null : arg;
                default -> arg;
            };
            long offset = switch (k) {
                case LAG, LEAD -> rnd.nextInt(3);
                case NTILE, NTH_VALUE -> 1 + rnd.nextInt(4);
                default -> 0;
            };
            Expr fallback = (k == Plan.WindowKind.LAG || k == Plan.WindowKind.LEAD) && rnd.nextBoolean()
                    ? (arg.equals(Expr.col(2)) ? Expr.lit(9.5, DatumType.FLOAT64) : Expr.call(Func.MUL, Expr.col(0), Expr.lit(10L, DatumType.INT64)))
                    : null;
            funcs.add(new Plan.WindowFunc(k, e, offset, fallback, !k.framed() ? null : valueBounds ? valueFrame(rnd, order.get(0).col()) : randomFrame(rnd)));
        }
        return new Plan.Window(Plan.get("u1"), partition, order, funcs);
    }
}
