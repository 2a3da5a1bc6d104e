package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Expr;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
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
 * A maintained {@code array_agg} (rendered as a group operator recomputing changed groups) against the reference
 * evaluator at every write, under inserts and deletes with multiplicities: NULL elements kept, ties between values
 * that compare equal but differ ({@code 1.5} and {@code 1.50}) in row order, groups that empty and come back.
 */
class ArrayAggProperties {

    /** Input {@code (g int64, v int64, s string, d float64, n numeric)}. */
    private static final List<DatumType> INPUT = List.of(DatumType.INT64, DatumType.INT64, DatumType.STRING, DatumType.FLOAT64,
            DatumType.NUMERIC);

    private static final Object[][] VALUES = {
        {null, 1L, 2L, -3L, Long.MAX_VALUE},
        {null, "a", "b", "", "A", "é"},
        {null, 0.0, -0.0, 1.5, Double.NaN, Double.NEGATIVE_INFINITY},
        {null, new BigDecimal("1.5"), new BigDecimal("1.50"), new BigDecimal("-2"), BigDecimal.ZERO},
    };

    private static Plan.Reduce plan(boolean keyed) {
        List<Plan.Aggregate> aggs = new ArrayList<>();
        for (int c = 1; c < INPUT.size(); c++) {
            aggs.add(new Plan.Aggregate(AggregateFunc.ARRAY_AGG, Expr.col(c)));
            aggs.add(new Plan.Aggregate(AggregateFunc.ARRAY_AGG_DESC, Expr.col(c)));
        }
        aggs.add(new Plan.Aggregate(AggregateFunc.COUNT, null));
        return new Plan.Reduce(Plan.get("t"), keyed ? List.of(0) : List.of(), aggs);
    }

    private static Row row(SplittableRandom rnd) {
        List<Object> values = new ArrayList<>();
        values.add((long) rnd.nextInt(3));
        for (Object[] choices : VALUES) {
            values.add(choices[rnd.nextInt(choices.length)]);
        }
        return Row.pack(INPUT, values);
    }

    @Property(tries = 25, shrinking = ShrinkingMode.OFF)
    void maintainedArrayAggEqualsTheReferenceAtEveryWrite(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Plan.Reduce plan = plan(rnd.nextBoolean());
        // exported keyed by its count, the last column
        RenderHarness.checkEveryWrite(rnd, INPUT, plan, List.of(plan.groupKey().size() + plan.aggregates().size() - 1), 8, ArrayAggProperties::row);
    }

    /** The order PostgreSQL's {@code ORDER BY} gives, NULLs last ascending and first descending, with repeated rows repeated. */
    @Test
    void elementsAreOrderedWithNullsAndCopies() {
        Map<Row, Long> rows = new HashMap<>();
        rows.put(Row.pack(INPUT, Arrays.asList(1L, 2L, "b", 1.5, new BigDecimal("1.50"))), 2L);
        rows.put(Row.pack(INPUT, Arrays.asList(1L, null, null, null, null)), 1L);
        rows.put(Row.pack(INPUT, Arrays.asList(1L, -3L, "a", 0.0, new BigDecimal("1.5"))), 1L);
        PlanEvaluator.Result r = PlanEvaluator.evaluate(plan(true), id -> INPUT, Map.of("t", rows));
        assertThat(r.errors()).isEmpty();
        Object[] out = r.rows().keySet().iterator().next().unpack();
        assertThat(out[1]).isEqualTo(new DatumArray(DatumType.INT64, Arrays.asList(-3L, 2L, 2L, null)));
        assertThat(out[2]).isEqualTo(new DatumArray(DatumType.INT64, Arrays.asList(null, 2L, 2L, -3L)));
        assertThat(out[3]).isEqualTo(new DatumArray(DatumType.STRING, Arrays.asList("a", "b", "b", null)));
        assertThat(out[5]).isEqualTo(new DatumArray(DatumType.FLOAT64, Arrays.asList(0.0, 1.5, 1.5, null)));
        assertThat(out[9]).isEqualTo(4L);
        assertThat(PlanJson.parse(PlanJson.write(plan(true)), "plan")).isEqualTo(plan(true));
    }
}
