package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Equal subplans are rendered once: a decorrelated scalar subquery repeats its reduction on both sides of
 * the outer join it became, and each further subquery repeats the whole again, so without sharing a query
 * of k subqueries read its table a number of times exponential in k. The shared operator feeds every
 * consumer, and the answer is the same.
 */
class SharedSubplansTest {

    @Test
    void equalSubplansBecomeOneOperatorFeedingEachConsumer() {
        try (RenderHarness h = new RenderHarness(2)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            long t0 = h.write("u1", Map.of(Row.of(1L, 10L), 1L, Row.of(2L, 20L), 2L));
            Plan sum = new Plan.Reduce(Plan.get("u1"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null)));
            Plan sameSum = new Plan.Reduce(Plan.get("u1"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null)));
            // count twice, minus count once: one count; written out as three equal, separately built subplans
            Plan plan = new Plan.Union(List.of(sum, sameSum, new Plan.Negate(sum)));
            DataflowDescription desc = new DataflowDescription(Map.of("u1", h.schemas.get("u1")), Map.of(),
                    List.of(new DataflowDescription.BuildDesc("o1", plan)), List.of(new DataflowDescription.IndexExport("e1", "o1", List.of(0))), t0,
                    null);
            DataflowWiring wiring = new DataflowWiring("e1", desc, 2, new MemoryBudget("e1", Long.MAX_VALUE), Dataflow.StepObserver.NONE,
                    id -> null, id -> true, why -> { });
            // source, the one count, negate, union, export: not three counts
            assertThat(wiring.order.stream().map(op -> op.name).toList()).containsExactly("source u1", "reduce", "negate", "union", "export e1");

            Dataflow df = h.start("e1", plan, List.of(0), t0);
            h.awaitSealed(df, t0);
            assertThat(RenderHarness.read(df.exports().get(0), t0)).isEqualTo(h.expected(plan, t0));
            assertThat(RenderHarness.read(df.exports().get(0), t0).rows()).isEqualTo(Map.of(Row.of(3L), 1L));
        }
    }
}
