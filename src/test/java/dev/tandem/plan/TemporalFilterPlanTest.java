package dev.tandem.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.expr.Expr;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.TimestampTz;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;

/** A {@code temporal_filter} plan's JSON form, typing, names and reference semantics, by example. */
class TemporalFilterPlanTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<DatumType> IN = List.of(DatumType.INT64, DatumType.TIMESTAMPTZ);
    private static final String FORM = "{\"op\":\"temporal_filter\",\"input\":{\"op\":\"get\",\"id\":\"t\"},"
            + "\"bounds\":[{\"cmp\":\"<\",\"expr\":{\"col\":1},\"shift\":-3600000000},{\"cmp\":\">=\",\"expr\":{\"col\":1},\"shift\":0}]}";

    private static Plan parse(String json) {
        return PlanJson.parse(JSON.readTree(json), "");
    }

    @Test
    void theDocumentedFormParsesAndWritesBack() {
        Plan p = parse(FORM);
        assertThat(p).isEqualTo(new Plan.TemporalFilter(Plan.get("t"), List.of(
                new Plan.TemporalBound(Plan.TemporalCmp.LT, Expr.col(1), -3_600_000_000L),
                new Plan.TemporalBound(Plan.TemporalCmp.GE, Expr.col(1), 0))));
        assertThat(PlanJson.write(p).toString()).isEqualTo(FORM);
        assertThat(p.types(id -> IN, "")).isEqualTo(IN);
        assertThat(PlanNames.of(p, id -> List.of("id", "created_at"))).containsExactly("id", "created_at");
        assertThat(p.dependencies()).containsExactly("t");
    }

    @Test
    void malformedBoundsAreRefusedWithTheirPath() {
        assertThatThrownBy(() -> parse(FORM.replace("\"<\"", "\"<>\""))).isInstanceOf(PlanException.class)
                .hasMessageContaining("bounds[0].cmp").hasMessageContaining("expected <, <=, >, >= or =");
        assertThatThrownBy(() -> parse(FORM.replace("-3600000000", "1.5"))).isInstanceOf(PlanException.class)
                .hasMessageContaining("bounds[0].shift");
        assertThatThrownBy(() -> parse(FORM.replace(",\"shift\":0}", ",\"shift\":0,\"x\":1}"))).isInstanceOf(PlanException.class)
                .hasMessageContaining("bounds[1]");
        Plan overInt = parse(FORM.replace("{\"col\":1},\"shift\":0", "{\"col\":0},\"shift\":0"));
        assertThatThrownBy(() -> overInt.types(id -> IN, "")).isInstanceOf(PlanException.class)
                .hasMessageContaining("bounds[1].expr").hasMessageContaining("timestamptz or timestamp, got int64");
    }

    @Test
    void theReferenceKeepsTheRowsWhoseBoundsHoldAtTheTime() {
        Plan p = parse(FORM);
        // created_at = 1.0005 s: in [ceil(1000.5), ceil(3601000.5)) = [1001, 3601001) milliseconds
        Row row = Row.pack(IN, List.of(1L, new TimestampTz(1_000_500)));
        Map<String, Map<Row, Long>> in = Map.of("t", Map.of(row, 2L));
        assertThat(PlanEvaluator.evaluate(p, id -> IN, in, 1000L).rows()).isEmpty();
        assertThat(PlanEvaluator.evaluate(p, id -> IN, in, 1001L).rows()).containsExactly(Map.entry(row, 2L));
        assertThat(PlanEvaluator.evaluate(p, id -> IN, in, 3_601_000L).rows()).containsExactly(Map.entry(row, 2L));
        assertThat(PlanEvaluator.evaluate(p, id -> IN, in, 3_601_001L).rows()).isEmpty();
        assertThatThrownBy(() -> PlanEvaluator.evaluate(p, id -> IN, in)).isInstanceOf(PlanException.class)
                .hasMessageContaining("evaluated at a time");
    }
}
