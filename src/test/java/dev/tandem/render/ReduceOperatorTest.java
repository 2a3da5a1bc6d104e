package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The incremental reduce shard against the recomputing one ({@link GroupOperator} over
 * {@link GroupFunctions#reduce}) on random rounds, and on the cases incremental maintenance gets
 * wrong most easily: min/max retractions (of every type: float64's {@code -0.0}, which is packed as
 * {@code 0.0}, and NaN included),
 * sums that overflow and come back, groups that empty and reappear, NULL arguments, evaluation errors
 * and negative multiplicities.
 */
class ReduceOperatorTest {

    /** Input {@code (g int64, v int64, s string)}. */
    private static final List<DatumType> INPUT = List.of(DatumType.INT64, DatumType.INT64, DatumType.STRING);
    private static final long BIG = Long.MAX_VALUE - 2;

    private static Plan.Reduce reduce(Plan.Aggregate... aggregates) {
        return new Plan.Reduce(Plan.get("t"), List.of(0), List.of(aggregates));
    }

    private static Plan.Aggregate agg(AggregateFunc f, Expr e) {
        return new Plan.Aggregate(f, e);
    }

    /** Every incremental aggregate, and a sum whose argument fails (v + 2 overflows) for the largest values. */
    private static final Plan.Reduce ALL = reduce(
            agg(AggregateFunc.COUNT, null),
            agg(AggregateFunc.COUNT, Expr.col(1)),
            agg(AggregateFunc.SUM, Expr.col(1)),
            agg(AggregateFunc.MIN, Expr.col(1)),
            agg(AggregateFunc.MAX, Expr.col(1)),
            agg(AggregateFunc.MIN, Expr.col(2)),
            agg(AggregateFunc.MAX, Expr.col(2)),
            agg(AggregateFunc.SUM, Expr.call(Func.ADD, Expr.col(1), Expr.lit(2L, DatumType.INT64))));

    /** One shard of a reduce, fed round by round; collects consolidated output and errors. */
    private static final class Driver {
        final Operator.Shard shard;
        long lower;
        boolean first = true;
        final Map<List<Object>, Long> out = new HashMap<>();
        final Map<List<Object>, Long> errs = new HashMap<>();

        Driver(Plan.Reduce r, boolean incremental, long asOf) {
            this(r, INPUT, incremental, asOf);
        }

        Driver(Plan.Reduce r, List<DatumType> input, boolean incremental, long asOf) {
            this(r, input, incremental, asOf, false);
        }

        /** {@code nonNegative}: the incremental operator is told its input never holds a negative multiplicity. */
        Driver(Plan.Reduce r, List<DatumType> input, boolean incremental, long asOf, boolean nonNegative) {
            List<DatumType> outTypes = r.types(id -> input, "");
            int[] key = r.groupKey().stream().mapToInt(Integer::intValue).toArray();
            List<Expr> args = r.aggregates().stream().map(Plan.Aggregate::expr).filter(e -> e != null).toList();
            Operator op = incremental
                    ? new ReduceOperator(null, r, outTypes, asOf, nonNegative)
                    : new GroupOperator("reduce", null, key, args, (k, members) -> GroupFunctions.reduce(r, outTypes, k, members), asOf);
            shard = op.shard(0);
            lower = asOf;
        }

        /** Runs the round {@code [lower, upper)} and returns its output, consolidated. */
        Map<List<Object>, Long> round(long upper, List<U> updates) {
            Updates in = new Updates();
            for (U u : updates) {
                in.add(u.row(), u.time(), u.diff());
            }
            Updates o = new Updates();
            Updates e = new Updates();
            shard.step(new Updates[] {in}, new Operator.Round(lower, upper, first, new LongAdder()), o, e);
            lower = upper;
            first = false;
            Map<List<Object>, Long> result = new HashMap<>();
            consolidate(o, "row", result, out);
            consolidate(e, "error", result, errs);
            return result;
        }

        private static void consolidate(Updates u, String kind, Map<List<Object>, Long> result, Map<List<Object>, Long> total) {
            for (int i = 0; i < u.size; i++) {
                result.merge(List.of(kind, u.row(i), u.times[i]), u.diffs[i], Long::sum);
                total.merge(List.of(u.row(i)), u.diffs[i], Long::sum);
            }
            result.values().removeIf(d -> d == 0);
            total.values().removeIf(d -> d == 0);
        }
    }

    private static Row in(long g, Long v, String s) {
        return Row.pack(INPUT, java.util.Arrays.asList(g, v, s));
    }

    /** One input update. */
    private record U(Row row, long time, long diff) {
    }

    private static U up(Row row, long time, long diff) {
        return new U(row, time, diff);
    }

    @Property(tries = 300)
    void incrementalMatchesRecomputeOnRandomRounds(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long asOf = rnd.nextInt(3);
        Driver inc = new Driver(ALL, true, asOf);
        Driver re = new Driver(ALL, false, asOf);
        Long[] vs = {null, 0L, 1L, -1L, 2L, 7L, -7L, 100L, BIG, BIG - 1, -BIG, Long.MAX_VALUE, Long.MIN_VALUE};
        String[] ss = {null, "", "a", "b", "ab", "z"};
        List<Row> seen = new ArrayList<>();
        long time = asOf;
        for (int round = 0; round < 12; round++) {
            long upper = time + 1 + rnd.nextInt(4);
            List<U> updates = new ArrayList<>();
            int n = rnd.nextInt(12);
            for (int i = 0; i < n; i++) {
                long t = time + rnd.nextLong(upper - time);
                Row row;
                if (!seen.isEmpty() && rnd.nextInt(3) == 0) {
                    row = seen.get(rnd.nextInt(seen.size()));
                } else {
                    row = in(rnd.nextInt(4), vs[rnd.nextInt(vs.length)], ss[rnd.nextInt(ss.length)]);
                    seen.add(row);
                }
                long diff = rnd.nextInt(10) == 0 ? 0 : (rnd.nextInt(3) == 0 ? -1 - rnd.nextInt(2) : 1 + rnd.nextInt(2));
                updates.add(up(row, t, diff));
            }
            assertThat(inc.round(upper, updates)).as("round %d", round).isEqualTo(re.round(upper, updates));
            time = upper;
        }
        assertThat(inc.out).isEqualTo(re.out);
        assertThat(inc.errs).isEqualTo(re.errs);
    }

    /**
     * An input that never holds a negative multiplicity (a table's): each round's updates, at several
     * times and in shuffled order (a retraction may come before the insertion it follows at its time),
     * leave every row's count non-negative after each time. The operator keeping only group totals
     * answers as the recomputation does, and as the operator keeping every row's multiplicity.
     */
    @Property(tries = 300)
    void groupTotalsAloneMatchRecomputeOnANonNegativeInput(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        long asOf = rnd.nextInt(3);
        Driver totals = new Driver(ALL, INPUT, true, asOf, true);
        Driver rows = new Driver(ALL, INPUT, true, asOf, false);
        Driver re = new Driver(ALL, false, asOf);
        Long[] vs = {null, 0L, 1L, -1L, 7L, BIG, -BIG, Long.MAX_VALUE, Long.MIN_VALUE};
        String[] ss = {null, "a", "b", "z"};
        Map<Row, Long> live = new HashMap<>();
        long time = asOf;
        for (int round = 0; round < 12; round++) {
            long upper = time + 1 + rnd.nextInt(3);
            List<U> updates = new ArrayList<>();
            for (long t = time; t < upper; t++) {
                int n = rnd.nextInt(8);
                for (int i = 0; i < n; i++) {
                    List<Row> present = live.keySet().stream().filter(r -> live.get(r) > 0).toList();
                    if (!present.isEmpty() && rnd.nextInt(2) == 0) {
                        Row old = present.get(rnd.nextInt(present.size()));
                        long k = 1 + rnd.nextLong(live.get(old));
                        updates.add(up(old, t, -k));
                        live.merge(old, -k, Long::sum);
                        if (rnd.nextBoolean()) {
                            // an update: the row's replacement at the same time, in the same or another group
                            Row next = in(rnd.nextInt(4), vs[rnd.nextInt(vs.length)], ss[rnd.nextInt(ss.length)]);
                            updates.add(up(next, t, k));
                            live.merge(next, k, Long::sum);
                        }
                    } else {
                        Row row = in(rnd.nextInt(4), vs[rnd.nextInt(vs.length)], ss[rnd.nextInt(ss.length)]);
                        long k = 1 + rnd.nextInt(2);
                        updates.add(up(row, t, k));
                        live.merge(row, k, Long::sum);
                    }
                }
            }
            java.util.Collections.shuffle(updates, new java.util.Random(rnd.nextLong()));
            Map<List<Object>, Long> expected = re.round(upper, updates);
            assertThat(totals.round(upper, updates)).as("round %d", round).isEqualTo(expected);
            assertThat(rows.round(upper, updates)).as("round %d", round).isEqualTo(expected);
            time = upper;
        }
        assertThat(totals.out).isEqualTo(re.out);
        assertThat(totals.errs).isEqualTo(re.errs);
    }

    /** Input {@code (g int64, f float64, t timestamp, b bool, i int64)}. */
    private static final List<DatumType> TYPED = List.of(DatumType.INT64, DatumType.FLOAT64, DatumType.TIMESTAMP, DatumType.BOOL, DatumType.INT64);

    /** Min and max of every type that orders as a long; min(f) twice, so two aggregates read one multiset. */
    private static final Plan.Reduce EXTREMES = reduce(
            agg(AggregateFunc.MIN, Expr.col(1)),
            agg(AggregateFunc.MAX, Expr.col(1)),
            agg(AggregateFunc.MIN, Expr.col(2)),
            agg(AggregateFunc.MAX, Expr.col(2)),
            agg(AggregateFunc.MAX, Expr.col(3)),
            agg(AggregateFunc.MIN, Expr.col(3)),
            agg(AggregateFunc.COUNT, Expr.col(1)),
            agg(AggregateFunc.MIN, Expr.col(1)),
            agg(AggregateFunc.MAX, Expr.col(4)),
            agg(AggregateFunc.MIN, Expr.call(Func.NEG, Expr.col(1))));

    @Property(tries = 300)
    void extremesOfEveryTypeFollowTheDatumOrder(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Driver inc = new Driver(EXTREMES, TYPED, true, 0);
        Driver re = new Driver(EXTREMES, TYPED, false, 0);
        Double[] fs = {null, -0.0, 0.0, Double.NaN, Double.longBitsToDouble(0x7ff0_0000_0000_0001L), Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, 1.5, -1.5};
        Long[] ts = {null, Long.MIN_VALUE, -1L, 0L, 1L, 1_700_000_000_000_000L, Long.MAX_VALUE};
        Boolean[] bs = {null, false, true};
        Long[] is = {null, Long.MIN_VALUE, -1L, 0L, 1L, Long.MAX_VALUE};
        List<Row> live = new ArrayList<>();
        for (int round = 0; round < 12; round++) {
            List<U> updates = new ArrayList<>();
            for (int i = rnd.nextInt(12); i > 0; i--) {
                if (!live.isEmpty() && rnd.nextInt(3) == 0) {
                    updates.add(up(live.remove(rnd.nextInt(live.size())), round, -1));
                } else {
                    Long t = ts[rnd.nextInt(ts.length)];
                    Row row = Row.pack(TYPED, java.util.Arrays.asList((long) rnd.nextInt(3), fs[rnd.nextInt(fs.length)],
                            t == null ? null : new Timestamp(t), bs[rnd.nextInt(bs.length)], is[rnd.nextInt(is.length)]));
                    live.add(row);
                    updates.add(up(row, round, 1));
                }
            }
            assertThat(inc.round(round + 1, updates)).as("round %d", round).isEqualTo(re.round(round + 1, updates));
        }
        assertThat(inc.out).isEqualTo(re.out);
    }

    /**
     * PostgreSQL's float8: -0 = 0, so a group by a float64 holds -0.0 and 0.0 as one group, and a min or
     * max over both (here of {@code f * i}, -0.0 for i = -1) is 0.0; each shard agrees.
     */
    @Test
    void negativeZeroAndZeroAreOneGroupAndOneExtreme() {
        List<DatumType> fi = List.of(DatumType.FLOAT64, DatumType.INT64);
        Expr product = Expr.call(Func.MUL, Expr.col(0), Expr.cast(Expr.col(1), DatumType.FLOAT64));
        Plan.Reduce byF = new Plan.Reduce(Plan.get("t"), List.of(0),
                List.of(agg(AggregateFunc.COUNT, null), agg(AggregateFunc.MIN, product), agg(AggregateFunc.MAX, product)));
        List<DatumType> outTypes = byF.types(id -> fi, "");
        for (boolean incremental : new boolean[] {true, false}) {
            Driver d = new Driver(byF, fi, incremental, 0);
            Row negative = Row.pack(fi, List.of(-0.0, 1L));
            Row positive = Row.pack(fi, List.of(0.0, -1L));
            Row alsoPositive = Row.pack(fi, List.of(0.0, 1L));
            d.round(1, List.of(up(negative, 0, 1), up(positive, 0, 1), up(alsoPositive, 0, 1)));
            assertThat(d.out).as("incremental %s", incremental).isEqualTo(Map.of(List.of(Row.pack(outTypes, List.of(0.0, 3L, 0.0, 0.0))), 1L));
            Object min = ((Row) d.out.keySet().iterator().next().get(0)).get(2);
            assertThat(Double.doubleToRawLongBits((Double) min)).as("the min reads back as 0.0, not -0.0").isZero();
            d.round(2, List.of(up(alsoPositive, 1, -1), up(negative, 1, -1)));
            assertThat(d.out).as("incremental %s", incremental).isEqualTo(Map.of(List.of(Row.pack(outTypes, List.of(0.0, 1L, 0.0, 0.0))), 1L));
        }
    }

    private static Row out(long g, Object... aggregates) {
        List<Object> values = new ArrayList<>();
        values.add(g);
        values.addAll(java.util.Arrays.asList(aggregates));
        return Row.pack(MIN_MAX_SUM.types(id -> INPUT, ""), values);
    }

    private static final Plan.Reduce MIN_MAX_SUM = reduce(
            agg(AggregateFunc.COUNT, Expr.col(1)),
            agg(AggregateFunc.SUM, Expr.col(1)),
            agg(AggregateFunc.MIN, Expr.col(1)),
            agg(AggregateFunc.MAX, Expr.col(1)));

    private static Map<List<Object>, Long> expect(Object... kindRowTimeDiff) {
        Map<List<Object>, Long> m = new HashMap<>();
        for (int i = 0; i < kindRowTimeDiff.length; i += 4) {
            m.put(List.of(kindRowTimeDiff[i], kindRowTimeDiff[i + 1], kindRowTimeDiff[i + 2]), (Long) kindRowTimeDiff[i + 3]);
        }
        return m;
    }

    /** Runs a scripted sequence on both shards, asserting they agree, and returns the incremental output. */
    private static List<Map<List<Object>, Long>> script(Plan.Reduce r, List<List<U>> rounds) {
        Driver inc = new Driver(r, true, 0);
        Driver re = new Driver(r, false, 0);
        List<Map<List<Object>, Long>> outputs = new ArrayList<>();
        long upper = 0;
        for (List<U> round : rounds) {
            upper += 10;
            Map<List<Object>, Long> got = inc.round(upper, round);
            assertThat(got).isEqualTo(re.round(upper, round));
            outputs.add(got);
        }
        return outputs;
    }

    @Test
    void minAndMaxFollowRetractions() {
        Row a = in(1, 5L, null);
        Row b = in(1, 3L, null);
        Row c = in(1, 9L, null);
        var outs = script(MIN_MAX_SUM, List.of(
                List.of(up(a, 0, 1), up(b, 1, 1), up(c, 1, 1)),
                List.of(up(b, 10, -1)),
                List.of(up(c, 20, -1), up(a, 21, 1)),
                List.of(up(a, 30, -2))));
        assertThat(outs.get(0)).isEqualTo(expect(
                "row", out(1, 1L, 5L, 5L, 5L), 0L, 1L,
                "row", out(1, 1L, 5L, 5L, 5L), 1L, -1L,
                "row", out(1, 3L, 17L, 3L, 9L), 1L, 1L));
        assertThat(outs.get(1)).isEqualTo(expect(
                "row", out(1, 3L, 17L, 3L, 9L), 10L, -1L,
                "row", out(1, 2L, 14L, 5L, 9L), 10L, 1L));
        assertThat(outs.get(2)).isEqualTo(expect(
                "row", out(1, 2L, 14L, 5L, 9L), 20L, -1L,
                "row", out(1, 1L, 5L, 5L, 5L), 20L, 1L,
                "row", out(1, 1L, 5L, 5L, 5L), 21L, -1L,
                "row", out(1, 2L, 10L, 5L, 5L), 21L, 1L));
        assertThat(outs.get(3)).isEqualTo(expect("row", out(1, 2L, 10L, 5L, 5L), 30L, -1L));
    }

    @Test
    void aMinimumRepeatedInTwoRowsSurvivesTheRetractionOfOne() {
        Row a = in(1, 3L, "x");
        Row b = in(1, 3L, "y");
        Row c = in(1, 4L, "z");
        var outs = script(MIN_MAX_SUM, List.of(
                List.of(up(a, 0, 1), up(b, 0, 1), up(c, 0, 1)),
                List.of(up(a, 10, -1)),
                List.of(up(b, 20, -1))));
        assertThat(outs.get(1)).isEqualTo(expect(
                "row", out(1, 3L, 10L, 3L, 4L), 10L, -1L,
                "row", out(1, 2L, 7L, 3L, 4L), 10L, 1L));
        assertThat(outs.get(2)).isEqualTo(expect(
                "row", out(1, 2L, 7L, 3L, 4L), 20L, -1L,
                "row", out(1, 1L, 4L, 4L, 4L), 20L, 1L));
    }

    @Test
    void aSumThatOverflowsIsAnErrorUntilItComesBack() {
        Row max = in(1, Long.MAX_VALUE, null);
        Row one = in(1, 1L, null);
        Row minusTwo = in(1, -2L, null);
        var outs = script(MIN_MAX_SUM, List.of(
                List.of(up(max, 0, 1)),
                List.of(up(one, 10, 1)),
                List.of(up(max, 20, 1)),
                List.of(up(max, 30, -1), up(minusTwo, 30, 1)),
                List.of(up(one, 40, -1))));
        Row atMax = out(1, 1L, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        Row overflow = GroupFunctions.SUM_OVERFLOW.row();
        assertThat(outs.get(1)).isEqualTo(expect("row", atMax, 10L, -1L, "error", overflow, 10L, 1L));
        assertThat(outs.get(2)).isEqualTo(Map.of());
        assertThat(outs.get(3)).isEqualTo(expect(
                "error", overflow, 30L, -1L,
                "row", out(1, 3L, Long.MAX_VALUE - 1, -2L, Long.MAX_VALUE), 30L, 1L));
        assertThat(outs.get(4)).isEqualTo(expect(
                "row", out(1, 3L, Long.MAX_VALUE - 1, -2L, Long.MAX_VALUE), 40L, -1L,
                "row", out(1, 2L, Long.MAX_VALUE - 2, -2L, Long.MAX_VALUE), 40L, 1L));
    }

    @Test
    void aGroupThatEmptiesProducesNoRowAndMayReappear() {
        Row a = in(1, 5L, null);
        Row b = in(2, 6L, null);
        var outs = script(MIN_MAX_SUM, List.of(
                List.of(up(a, 0, 1), up(b, 0, 1)),
                List.of(up(a, 10, -1), up(a, 12, 1), up(b, 11, -1)),
                List.of(up(b, 20, 1), up(b, 20, 1))));
        assertThat(outs.get(1)).isEqualTo(expect(
                "row", out(1, 1L, 5L, 5L, 5L), 10L, -1L,
                "row", out(1, 1L, 5L, 5L, 5L), 12L, 1L,
                "row", out(2, 1L, 6L, 6L, 6L), 11L, -1L));
        assertThat(outs.get(2)).isEqualTo(expect("row", out(2, 2L, 12L, 6L, 6L), 20L, 1L));
    }

    @Test
    void nullArgumentsCountAsMembersButNotAsValues() {
        Plan.Reduce r = reduce(agg(AggregateFunc.COUNT, null), agg(AggregateFunc.COUNT, Expr.col(1)), agg(AggregateFunc.SUM, Expr.col(1)),
                agg(AggregateFunc.MIN, Expr.col(2)), agg(AggregateFunc.MAX, Expr.col(1)));
        List<DatumType> types = r.types(id -> INPUT, "");
        Row n1 = in(1, null, null);
        Row n2 = in(1, null, "q");
        Row v = in(1, 4L, null);
        var outs = script(r, List.of(
                List.of(up(n1, 0, 2), up(n2, 0, 1)),
                List.of(up(v, 10, 1)),
                List.of(up(v, 20, -1), up(n2, 20, -1))));
        Row nulls = Row.pack(types, java.util.Arrays.asList(1L, 3L, 0L, null, "q", null));
        Row withV = Row.pack(types, java.util.Arrays.asList(1L, 4L, 1L, 4L, "q", 4L));
        Row noString = Row.pack(types, java.util.Arrays.asList(1L, 2L, 0L, null, null, null));
        assertThat(outs.get(0)).isEqualTo(expect("row", nulls, 0L, 1L));
        assertThat(outs.get(1)).isEqualTo(expect("row", nulls, 10L, -1L, "row", withV, 10L, 1L));
        assertThat(outs.get(2)).isEqualTo(expect("row", withV, 20L, -1L, "row", noString, 20L, 1L));
    }

    @Test
    void anArgumentThatFailsIsAnErrorAndTakesNoPart() {
        Plan.Reduce r = reduce(agg(AggregateFunc.COUNT, null), agg(AggregateFunc.SUM, Expr.call(Func.ADD, Expr.col(1), Expr.lit(1L, DatumType.INT64))));
        List<DatumType> types = r.types(id -> INPUT, "");
        Row bad = in(1, Long.MAX_VALUE, null);
        Row good = in(1, 1L, null);
        var outs = script(r, List.of(
                List.of(up(bad, 0, 3), up(good, 1, 1)),
                List.of(up(bad, 10, -3))));
        Row addOverflow = Row.of("int64 overflow in add", "numeric_out_of_range");
        assertThat(outs.get(0)).isEqualTo(expect("error", addOverflow, 0L, 3L, "row", Row.pack(types, List.of(1L, 1L, 2L)), 1L, 1L));
        assertThat(outs.get(1)).isEqualTo(expect("error", addOverflow, 10L, -3L));
    }

    @Test
    void aNegativeMemberMakesTheGroupAnErrorUntilItIsRepaired() {
        Row a = in(1, 5L, null);
        Row b = in(1, 6L, null);
        var outs = script(MIN_MAX_SUM, List.of(
                List.of(up(a, 0, 1)),
                List.of(up(b, 10, -1)),
                List.of(up(a, 20, -1)),
                List.of(up(b, 30, 1))));
        Row negative = GroupFunctions.NEGATIVE_REDUCE.row();
        assertThat(outs.get(1)).isEqualTo(expect("row", out(1, 1L, 5L, 5L, 5L), 10L, -1L, "error", negative, 10L, 1L));
        assertThat(outs.get(2)).isEqualTo(Map.of());
        assertThat(outs.get(3)).isEqualTo(expect("error", negative, 30L, -1L));
    }

    @Test
    void manyGroupsGrowAndShrinkTheSlotTables() {
        Plan.Reduce r = reduce(agg(AggregateFunc.COUNT, null), agg(AggregateFunc.MAX, Expr.col(1)));
        Driver inc = new Driver(r, true, 0);
        Driver re = new Driver(r, false, 0);
        SplittableRandom rnd = new SplittableRandom(7);
        List<Row> live = new ArrayList<>();
        for (int round = 1; round <= 40; round++) {
            List<U> updates = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                if (!live.isEmpty() && rnd.nextInt(round % 10 < 5 ? 4 : 2) != 0) {
                    updates.add(up(live.remove(rnd.nextInt(live.size())), round, -1));
                } else {
                    Row row = in(rnd.nextInt(2_000), (long) rnd.nextInt(50), null);
                    live.add(row);
                    updates.add(up(row, round, 1));
                }
            }
            assertThat(inc.round(round + 1, updates)).isEqualTo(re.round(round + 1, updates));
        }
        assertThat(inc.out).isEqualTo(re.out);
    }
}
