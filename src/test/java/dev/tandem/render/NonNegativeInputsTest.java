package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Mfp;
import dev.tandem.plan.AggregateFunc;
import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Schema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which collections the renderer takes as never holding a negative multiplicity (so a reduce over them
 * keeps group totals only): a table's and what maps, joins, unions and reduces such collections; never
 * an imported index or a negation that no threshold or reduce follows.
 */
class NonNegativeInputsTest {

    private static final Schema KV = new Schema(List.of(new Column("k", DatumType.INT64, false), new Column("v", DatumType.INT64, true)));

    @Test
    void tablesAndWhatPreservesThemAreNonNegative() {
        Plan table = Plan.get("t");
        Plan index = Plan.get("i");
        Plan difference = new Plan.Union(List.of(table, new Plan.Negate(table)));
        DataflowDescription desc = new DataflowDescription(Map.of("t", KV),
                Map.of("i", new DataflowDescription.IndexImport("v", List.of(0), KV)),
                List.of(new DataflowDescription.BuildDesc("o1", new Plan.MapFilterProject(table, Mfp.project(List.of(1, 0)))),
                        new DataflowDescription.BuildDesc("o2", difference)),
                List.of(), 0, null);
        DataflowRenderer r = new DataflowRenderer(desc, 1, id -> null, id -> true);

        assertThat(r.nonNegative(table)).isTrue();
        assertThat(r.nonNegative(new Plan.MapFilterProject(table, Mfp.project(List.of(0))))).isTrue();
        assertThat(r.nonNegative(new Plan.Join(List.of(table, table), List.of()))).isTrue();
        assertThat(r.nonNegative(new Plan.Union(List.of(table, table)))).isTrue();
        assertThat(r.nonNegative(new Plan.Reduce(difference, List.of(0), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null))))).isTrue();
        assertThat(r.nonNegative(new Plan.Threshold(difference))).isTrue();
        assertThat(r.nonNegative(Plan.get("o1"))).as("an object built in the dataflow from a table").isTrue();

        assertThat(r.nonNegative(index)).as("an imported index").isFalse();
        assertThat(r.nonNegative(difference)).as("a difference").isFalse();
        assertThat(r.nonNegative(new Plan.Negate(table))).isFalse();
        assertThat(r.nonNegative(new Plan.MapFilterProject(difference, Mfp.project(List.of(0))))).isFalse();
        assertThat(r.nonNegative(Plan.get("o2"))).as("an object built from a difference").isFalse();

        DataflowRenderer untrusted = new DataflowRenderer(desc, 1, id -> null, id -> false);
        assertThat(untrusted.nonNegative(table)).as("a table recovery found a negative count in").isFalse();
        assertThat(untrusted.nonNegative(new Plan.Threshold(table))).isTrue();
    }
}
