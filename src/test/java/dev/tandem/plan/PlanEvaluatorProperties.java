package dev.tandem.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/** The naive evaluator is total on random plans with every operator and function, and its results are well-typed. */
class PlanEvaluatorProperties {

    @Provide
    Arbitrary<RandomPlans.Scenario> scenarios() {
        return RandomPlans.scenarios(false);
    }

    @Property(tries = 300)
    void evaluationIsTotalAndWellTyped(@ForAll("scenarios") RandomPlans.Scenario s) {
        List<DatumType> types = s.plan().types(s.types()::get, "");
        PlanEvaluator.Result r = PlanEvaluator.evaluate(s.plan(), s.types()::get, s.data());
        for (Row row : r.rows().keySet()) {
            List<DatumType> rowTypes = new ArrayList<>();
            for (int i = 0; i < row.arity(); i++) {
                rowTypes.add(row.typeAt(i));
            }
            assertThat(rowTypes).isEqualTo(types);
        }
        assertThat(r.rows().values()).doesNotContain(0L);
        assertThat(r.errors().values()).doesNotContain(0L);

        Statistics.label("output").collect(!r.errors().isEmpty() ? "errors" : r.rows().isEmpty() ? "empty" : "rows");
        Statistics.label("negative").collect(r.rows().values().stream().anyMatch(n -> n < 0));
        Statistics.label("null in output").collect(r.rows().keySet().stream().anyMatch(row -> java.util.Arrays.asList(row.unpack()).contains(null)));
        Statistics.label("timestamp input").collect(RandomPlans.uses(s, DatumType.TIMESTAMP));
        Statistics.label("output").coverage(c -> {
            c.check("rows").percentage(p -> p >= 30);
            c.check("errors").percentage(p -> p >= 1);
        });
        Statistics.label("negative").coverage(c -> c.check(true).percentage(p -> p >= 2));
        Statistics.label("null in output").coverage(c -> c.check(true).percentage(p -> p >= 10));
        Statistics.label("timestamp input").coverage(c -> c.check(true).percentage(p -> p >= 20));
    }

    @Property(tries = 200)
    void aPlanMinusItselfIsEmptyAndThresholdIsPositive(@ForAll("scenarios") RandomPlans.Scenario s) {
        Plan p = s.plan();
        PlanEvaluator.Result zero = PlanEvaluator.evaluate(new Plan.Union(List.of(p, new Plan.Negate(p))), s.types()::get, s.data());
        assertThat(zero.rows()).isEmpty();
        PlanEvaluator.Result direct = PlanEvaluator.evaluate(p, s.types()::get, s.data());
        PlanEvaluator.Result positive = PlanEvaluator.evaluate(new Plan.Threshold(p), s.types()::get, s.data());
        assertThat(positive.rows()).allSatisfy((row, n) -> assertThat(n).isPositive().isEqualTo(direct.rows().get(row)));
        assertThat(positive.errors()).isEqualTo(direct.errors());
    }
}
