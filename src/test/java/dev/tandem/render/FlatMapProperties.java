package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.plan.TableFunctions;
import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import org.junit.jupiter.api.Test;

/**
 * A maintained {@code flat_map} (generate_series of int64s and numerics, unnest with and without ordinality, with
 * and without keeping rows that yield nothing) against the reference evaluator at every write, under inserts and
 * deletes with multiplicities, NULL arguments, empty and NULL arrays, NULL elements and steps of zero (errors).
 */
class FlatMapProperties {

    /** Input {@code (k int64, a int64, b int64, s int64, tags string[], na numeric, nb numeric, ns numeric)}. */
    private static final List<DatumType> INPUT = List.of(DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64,
            DatumType.STRING_ARRAY, DatumType.NUMERIC, DatumType.NUMERIC, DatumType.NUMERIC);

    private static final Object[][] VALUES = {
        {null, -2L, 0L, 1L, 3L},
        {null, -1L, 0L, 2L, 5L},
        {null, -2L, -1L, 0L, 1L, 2L},
        {null, new DatumArray(DatumType.STRING, List.of()), new DatumArray(DatumType.STRING, List.of("a")),
            new DatumArray(DatumType.STRING, Arrays.asList("a", null, "b", "a"))},
        {null, new BigDecimal("1.5"), BigDecimal.ZERO, new BigDecimal("-0.25")},
        {null, new BigDecimal("2"), new BigDecimal("3.25"), new BigDecimal("-1")},
        {null, new BigDecimal("0.5"), new BigDecimal("-0.25"), BigDecimal.ONE, BigDecimal.ZERO},
    };

    private static Plan.FlatMap plan(SplittableRandom rnd) {
        boolean keep = rnd.nextBoolean();
        return switch (rnd.nextInt(5)) {
            case 0 -> new Plan.FlatMap(Plan.get("t"), Plan.TableFunc.GENERATE_SERIES, List.of(Expr.col(1), Expr.col(2)), keep);
            case 1 -> new Plan.FlatMap(Plan.get("t"), Plan.TableFunc.GENERATE_SERIES, List.of(Expr.col(1), Expr.col(2), Expr.col(3)), keep);
            case 2 -> new Plan.FlatMap(Plan.get("t"), Plan.TableFunc.UNNEST, List.of(Expr.col(4)), keep);
            case 3 -> new Plan.FlatMap(Plan.get("t"), Plan.TableFunc.UNNEST_ORDINALITY, List.of(Expr.col(4)), keep);
            default -> new Plan.FlatMap(Plan.get("t"), Plan.TableFunc.GENERATE_SERIES, List.of(Expr.col(5), Expr.col(6), Expr.col(7)), keep);
        };
    }

    private static Row row(SplittableRandom rnd) {
        List<Object> values = new ArrayList<>();
        values.add((long) rnd.nextInt(4));
        for (Object[] choices : VALUES) {
            values.add(choices[rnd.nextInt(choices.length)]);
        }
        return Row.pack(INPUT, values);
    }

    @Property(tries = 30, shrinking = ShrinkingMode.OFF)
    void maintainedFlatMapEqualsTheReferenceAtEveryWrite(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Plan.FlatMap plan = plan(rnd);
        assertThat(PlanJson.parse(PlanJson.write(plan), "plan")).isEqualTo(plan);
        RenderHarness.checkEveryWrite(rnd, INPUT, plan, List.of(0), 6, FlatMapProperties::row);
    }

    /** The reference's series and elements, by example: the int64 range's end, numeric scales, positions, NULL padding. */
    @Test
    void referenceSeriesAndElements() {
        List<DatumType> in = List.of(DatumType.INT64, DatumType.INT64, DatumType.INT64);
        Plan series = new Plan.FlatMap(Plan.get("t"), Plan.TableFunc.GENERATE_SERIES, List.of(Expr.col(0), Expr.col(1), Expr.col(2)), true);
        Map<Row, Long> rows = new HashMap<>();
        rows.put(Row.pack(in, List.of(Long.MAX_VALUE - 2, Long.MAX_VALUE, 2L)), 1L);
        rows.put(Row.pack(in, List.of(3L, 1L, 1L)), 2L);
        PlanEvaluator.Result r = PlanEvaluator.evaluate(series, id -> in, Map.of("t", rows));
        assertThat(r.errors()).isEmpty();
        assertThat(r.rows()).containsOnly(
                Map.entry(Row.pack(List.of(DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64),
                        List.of(Long.MAX_VALUE - 2, Long.MAX_VALUE, 2L, Long.MAX_VALUE - 2)), 1L),
                Map.entry(Row.pack(List.of(DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64),
                        List.of(Long.MAX_VALUE - 2, Long.MAX_VALUE, 2L, Long.MAX_VALUE)), 1L),
                Map.entry(Row.pack(List.of(DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64),
                        Arrays.asList(3L, 1L, 1L, null)), 2L));
        List<Object[]> numerics = new ArrayList<>();
        TableFunctions.apply(Plan.TableFunc.GENERATE_SERIES, new Object[] {BigDecimal.ONE, new BigDecimal("2"), new BigDecimal("0.5")},
                numerics::add);
        assertThat(numerics.stream().map(v -> v[0].toString()).toList()).containsExactly("1", "1.5", "2.0");
        Map<Row, Long> zero = Map.of(Row.pack(in, List.of(1L, 5L, 0L)), 3L);
        assertThat(PlanEvaluator.evaluate(series, id -> in, Map.of("t", zero)).errors()).containsOnly(Map.entry(TableFunctions.ZERO_STEP, 3L));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableFunctions.apply(Plan.TableFunc.GENERATE_SERIES,
                new Object[] {1_000_000_000_000L, 1L, -1L}, v -> { }))
                .isInstanceOf(dev.tandem.expr.EvalError.class).hasMessage(TableFunctions.SERIES_TOO_LONG);
    }
}
