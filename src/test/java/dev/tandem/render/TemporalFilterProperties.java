package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Timestamp;
import dev.tandem.row.TimestampTz;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import org.junit.jupiter.api.Test;

/**
 * The temporal filter operator's output, accumulated to every time, against the reference evaluator at that time over
 * the input accumulated to it: random rows (timestamps around the times' microseconds, NULLs, values that fail to
 * evaluate, values at the ends of the range), random bounds (every comparison, shifts by sub-millisecond and large
 * amounts), random updates (inserts and retractions with multiplicities) over random rounds and two shards.
 */
class TemporalFilterProperties {

    /** Input {@code (k int64, a timestamptz, b timestamp, f float64)}: {@code to_timestamp(f)} fails on NaN and infinity. */
    private static final List<DatumType> INPUT = List.of(DatumType.INT64, DatumType.TIMESTAMPTZ, DatumType.TIMESTAMP, DatumType.FLOAT64);
    private static final int TIMES = 40;

    private static long micros(SplittableRandom rnd) {
        return switch (rnd.nextInt(12)) {
            case 0 -> Long.MAX_VALUE - rnd.nextInt(3);
            case 1 -> Long.MIN_VALUE + rnd.nextInt(3);
            case 2 -> rnd.nextInt(TIMES) * 1000L;
            default -> rnd.nextLong(-5_000, TIMES * 1000 + 5_000);
        };
    }

    private static long shift(SplittableRandom rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> 0;
            case 1 -> rnd.nextInt(-1001, 1002);
            case 2 -> Long.MAX_VALUE - rnd.nextInt(3);
            case 3 -> Long.MIN_VALUE + rnd.nextInt(3);
            default -> rnd.nextLong(-20_000, 20_000);
        };
    }

    private static Row row(SplittableRandom rnd) {
        List<Object> values = new ArrayList<>();
        values.add((long) rnd.nextInt(3));
        values.add(rnd.nextInt(8) == 0 ? null : new TimestampTz(micros(rnd)));
        values.add(rnd.nextInt(8) == 0 ? null : new Timestamp(micros(rnd)));
        Object[] floats = {null, 0.0, 0.0125, 0.0205, -0.001, Double.NaN, Double.POSITIVE_INFINITY};
        values.add(floats[rnd.nextInt(floats.length)]);
        return Row.pack(INPUT, values);
    }

    private static Plan.TemporalFilter plan(SplittableRandom rnd) {
        List<Plan.TemporalBound> bounds = new ArrayList<>();
        int n = 1 + rnd.nextInt(3);
        for (int i = 0; i < n; i++) {
            Plan.TemporalCmp cmp = Plan.TemporalCmp.values()[rnd.nextInt(Plan.TemporalCmp.values().length)];
            Expr e = switch (rnd.nextInt(4)) {
                case 0 -> Expr.col(2);
                case 1 -> Expr.call(Func.TO_TIMESTAMP, Expr.col(3));
                default -> Expr.col(1);
            };
            bounds.add(new Plan.TemporalBound(cmp, e, shift(rnd)));
        }
        return new Plan.TemporalFilter(Plan.get("t"), bounds);
    }

    @Property(tries = 200, shrinking = ShrinkingMode.OFF)
    void outputAtEveryTimeEqualsTheReference(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Plan.TemporalFilter plan = plan(rnd);
        assertThat(PlanJson.parse(PlanJson.write(plan), "plan")).isEqualTo(plan);
        assertThat(plan.types(id -> INPUT, "")).isEqualTo(INPUT);
        int shards = 1 + rnd.nextInt(2);
        TemporalFilterOperator op = new TemporalFilterOperator(new SourceOperator("t", shards), plan, INPUT);
        Operator.Shard[] shard = new Operator.Shard[shards];
        for (int w = 0; w < shards; w++) {
            shard[w] = op.shard(w);
        }
        List<Object[]> inputs = new ArrayList<>();
        List<Object[]> outputs = new ArrayList<>();
        List<Object[]> errors = new ArrayList<>();
        Map<Row, Long> present = new HashMap<>();
        long lower = 0;
        while (lower < TIMES) {
            long upper = Math.min(TIMES, lower + 1 + rnd.nextInt(8));
            Operator.Round round = new Operator.Round(lower, upper, lower == 0, new LongAdder());
            Updates[] in = new Updates[shards];
            for (int w = 0; w < shards; w++) {
                in[w] = new Updates();
            }
            int updates = rnd.nextInt(5);
            for (int i = 0; i < updates; i++) {
                List<Row> rows = new ArrayList<>(present.keySet());
                Row r;
                long d;
                if (!rows.isEmpty() && rnd.nextInt(3) == 0) {
                    r = rows.get(rnd.nextInt(rows.size()));
                    d = -present.get(r);
                } else {
                    r = row(rnd);
                    d = 1 + rnd.nextInt(2);
                }
                long t = rnd.nextLong(lower, upper);
                present.merge(r, d, (a, b) -> a + b == 0 ? null : a + b);
                in[rnd.nextInt(shards)].add(r, t, d);
                inputs.add(new Object[] {r, t, d});
            }
            for (int w = 0; w < shards; w++) {
                Updates out = new Updates();
                Updates errs = new Updates();
                shard[w].step(new Updates[] {in[w]}, round, out, errs);
                for (int i = 0; i < out.size; i++) {
                    assertThat(out.times[i]).as("an output of round [%d, %d)", lower, upper).isBetween(lower, upper - 1);
                    outputs.add(new Object[] {out.row(i), out.times[i], out.diffs[i]});
                }
                for (int i = 0; i < errs.size; i++) {
                    errors.add(new Object[] {errs.row(i).get(0), errs.times[i], errs.diffs[i]});
                }
            }
            for (long t = lower; t < upper; t++) {
                PlanEvaluator.Result expected = PlanEvaluator.evaluate(plan, id -> INPUT, Map.of("t", accumulated(inputs, t)), t);
                assertThat(accumulated(outputs, t)).as("rows at %d", t).isEqualTo(expected.rows());
                assertThat(accumulated(errors, t)).as("errors at %d", t).isEqualTo(expected.errors());
            }
            lower = upper;
        }
    }

    /** The updates {@code (x, time, diff)} at times up to {@code t}, summed by {@code x}, zeros dropped. */
    @SuppressWarnings("unchecked")
    private static <K> Map<K, Long> accumulated(List<Object[]> updates, long t) {
        Map<K, Long> out = new HashMap<>();
        for (Object[] u : updates) {
            if ((Long) u[1] <= t) {
                out.merge((K) u[0], (Long) u[2], (a, b) -> a + b == 0 ? null : a + b);
            }
        }
        return out;
    }

    /** The interval of a bound by example: a row leaves {@code a > now() - 1 h} at the first millisecond whose hour-earlier time reaches it. */
    @Test
    void validityRoundsMicrosecondsToTheFirstMillisecondThatFails() {
        long[] interval = new long[2];
        long hour = 3_600_000_000L;
        Plan.TemporalCmp[] lt = {Plan.TemporalCmp.LT};
        // now() - 1 h < a: t * 1000 - hour < a
        assertThat(TemporalFilterOperator.validity(Row.of(new TimestampTz(5_000_500)), lt, new long[] {-hour}, interval)).isTrue();
        assertThat(interval).containsExactly(Long.MIN_VALUE, 3_605_001);
        assertThat(TemporalFilterOperator.validity(Row.of(new TimestampTz(5_000_000)), lt, new long[] {-hour}, interval)).isTrue();
        assertThat(interval).containsExactly(Long.MIN_VALUE, 3_605_000);
        Plan.TemporalCmp[] ge = {Plan.TemporalCmp.GE};
        assertThat(TemporalFilterOperator.validity(Row.of(new TimestampTz(-1_500)), ge, new long[] {0}, interval)).isTrue();
        assertThat(interval).containsExactly(-1, Long.MAX_VALUE);
        assertThat(TemporalFilterOperator.validity(Row.of(new TimestampTz(Long.MIN_VALUE)), lt, new long[] {1}, interval)).isTrue();
        assertThat(interval[1]).as("below every time").isEqualTo(Long.MIN_VALUE);
        Row nothing = Row.pack(List.of(DatumType.TIMESTAMPTZ), java.util.Arrays.asList((Object) null));
        assertThat(TemporalFilterOperator.validity(nothing, lt, new long[] {0}, interval)).as("NULL").isFalse();
    }
}
