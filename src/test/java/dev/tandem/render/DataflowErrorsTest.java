package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * An evaluation error in one row among many becomes an error update with the row's multiplicity, in
 * the export's error collection, and disappears when the row is retracted; the other rows are unaffected.
 */
class DataflowErrorsTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Row BAD = Row.of(7L, 0L);

    /** 1000 rows {@code (i, i % 9 + 1)} and one row {@code (7, 0)} with multiplicity 3. */
    static Map<Row, Long> data() {
        Map<Row, Long> rows = new HashMap<>();
        for (long i = 0; i < 1000; i++) {
            rows.put(Row.of(i, i % 9 + 1), 1L);
        }
        rows.put(BAD, 3L);
        return rows;
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2})
    void aDivisionByZeroInAMapIsAnErrorUntilItsRowIsRetracted(int workers) {
        check(workers, "{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},"
                + "\"map\":[{\"call\":\"div\",\"args\":[{\"col\":0},{\"col\":1}]}],\"project\":[0,2]}", 1000, true);
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2})
    void aDivisionByZeroInAReduceArgumentIsAnErrorUntilItsRowIsRetracted(int workers) {
        check(workers, "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[1],"
                + "\"aggregates\":[{\"func\":\"sum\",\"expr\":{\"call\":\"div\",\"args\":[{\"col\":0},{\"col\":1}]}},{\"func\":\"count\"}]}", 9, false);
    }

    /**
     * {@code keyed}: the error comes from the MFP feeding the export, so it is kept under the failing
     * row's export key (column 0, here 7) and a read of another key does not meet it.
     */
    private static void check(int workers, String planJson, int okRows, boolean keyed) {
        Plan plan = PlanJson.parse(JSON.readTree(planJson), "plan");
        try (RenderHarness h = new RenderHarness(workers)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            long t0 = h.write("u1", data());
            Dataflow df = h.start("e1", plan, List.of(0), t0);
            long t1 = h.write("u1", Map.of(BAD, -1L));
            long t2 = h.write("u1", Map.of(Row.of(8L, 0L), 1L, Row.of(9L, 1L), 1L));
            long t3 = h.write("u1", Map.of(BAD, -2L, Row.of(8L, 0L), -1L));
            h.awaitSealed(df, t3);
            var export = df.exports().get(0);

            assertThat(RenderHarness.read(export, t0).errors()).isEqualTo(Map.of("division by zero", 3L));
            assertThat(RenderHarness.read(export, t1).errors()).isEqualTo(Map.of("division by zero", 2L));
            assertThat(RenderHarness.read(export, t2).errors()).isEqualTo(Map.of("division by zero", 3L));
            assertThat(RenderHarness.read(export, t3).errors()).isEmpty();
            assertThat(RenderHarness.read(export, t0).rows()).hasSize(okRows);
            var snap = export.snapshot();
            assertThat(snap.firstError(t0, List.of(Row.of(7L)))).isEqualTo("division by zero");
            assertThat(snap.firstError(t0, List.of(Row.of(1L)))).isEqualTo(keyed ? null : "division by zero");
            assertThat(snap.firstError(t2, List.of(Row.of(1L), Row.of(8L)))).isEqualTo("division by zero");
            assertThat(snap.firstError(t1, null)).isEqualTo("division by zero");
            assertThat(snap.firstError(t3, List.of(Row.of(7L)))).isNull();
            for (long t : new long[] {t0, t1, t2, t3}) {
                PlanEvaluator.Result expected = h.expected(plan, t);
                assertThat(RenderHarness.read(export, t)).as("at %d", t).isEqualTo(expected);
            }
        }
    }
}
