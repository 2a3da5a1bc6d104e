package dev.tandem.plan;

import static dev.tandem.expr.Expr.call;
import static dev.tandem.expr.Expr.col;
import static dev.tandem.expr.Expr.lit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.expr.Func;
import dev.tandem.expr.Mfp;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanEvaluatorTest {

    private static final List<DatumType> KV = List.of(DatumType.INT64, DatumType.INT64);
    private static final Map<String, List<DatumType>> TYPES = Map.of("a", KV, "b", KV);

    private static Row kv(Long k, Long v) {
        return Row.pack(KV, Arrays.asList(k, v));
    }

    private static Map<Row, Long> rows(Object... rowThenCount) {
        Map<Row, Long> m = new HashMap<>();
        for (int i = 0; i < rowThenCount.length; i += 2) {
            m.put((Row) rowThenCount[i], ((Number) rowThenCount[i + 1]).longValue());
        }
        return m;
    }

    private static PlanEvaluator.Result eval(Plan p, Map<Row, Long> a, Map<Row, Long> b) {
        return PlanEvaluator.evaluate(p, TYPES::get, Map.of("a", a, "b", b));
    }

    @Test
    void joinMultipliesMultiplicitiesAndNullNeverJoins() {
        Plan j = new Plan.Join(List.of(Plan.get("a"), Plan.get("b")), List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(1, 0))));
        PlanEvaluator.Result r = eval(j, rows(kv(1L, 10L), 2, kv(null, 11L), 1, kv(2L, 12L), -1),
                rows(kv(1L, 20L), 3, kv(null, 21L), 5, kv(2L, 22L), 1));
        assertThat(r.rows()).isEqualTo(rows(Row.of(1L, 10L, 1L, 20L), 6, Row.of(2L, 12L, 2L, 22L), -1));
    }

    @Test
    void mfpErrorsAreCountedByMultiplicity() {
        Plan p = new Plan.MapFilterProject(Plan.get("a"), new Mfp(List.of(call(Func.DIV, col(1), col(0))), List.of(), List.of(2)));
        PlanEvaluator.Result r = eval(p, rows(kv(0L, 1L), 3, kv(2L, 8L), 2, kv(0L, 5L), -1), Map.of());
        assertThat(r.rows()).isEqualTo(rows(Row.of(4L), 2));
        assertThat(r.errors()).isEqualTo(Map.of("division by zero", 2L));
    }

    @Test
    void reduceAggregatesPerSqlWithNulls() {
        Plan p = new Plan.Reduce(Plan.get("a"), List.of(0), List.of(
                new Plan.Aggregate(AggregateFunc.COUNT, null),
                new Plan.Aggregate(AggregateFunc.COUNT, col(1)),
                new Plan.Aggregate(AggregateFunc.SUM, col(1)),
                new Plan.Aggregate(AggregateFunc.MIN, col(1)),
                new Plan.Aggregate(AggregateFunc.MAX, col(1))));
        PlanEvaluator.Result r = eval(p, rows(kv(1L, 5L), 2, kv(1L, null), 1, kv(1L, -3L), 1, kv(2L, null), 4, kv(null, 7L), 1), Map.of());
        List<DatumType> t = Arrays.asList(DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64, DatumType.INT64);
        assertThat(r.rows()).isEqualTo(rows(
                Row.pack(t, Arrays.asList(1L, 4L, 3L, 7L, -3L, 5L)), 1,
                Row.pack(t, Arrays.asList(2L, 4L, 0L, null, null, null)), 1,
                Row.pack(t, Arrays.asList(null, 1L, 1L, 7L, 7L, 7L)), 1));
        assertThat(r.errors()).isEmpty();
    }

    @Test
    void reduceOfNegativeMultiplicityIsAnErrorPerGroup() {
        Plan distinct = new Plan.Reduce(Plan.get("a"), List.of(0), List.of());
        PlanEvaluator.Result r = eval(distinct, rows(kv(1L, 1L), 2, kv(1L, 2L), -1, kv(2L, 1L), 3), Map.of());
        assertThat(r.rows()).isEqualTo(rows(Row.of(2L), 1));
        assertThat(r.errors()).isEqualTo(Map.of(PlanEvaluator.NEGATIVE_REDUCE, 1L));
    }

    @Test
    void sumOverflowIsJudgedOnTheExactSum() {
        Plan sum = new Plan.Reduce(Plan.get("a"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.SUM, col(1))));
        assertThat(eval(sum, rows(kv(1L, Long.MAX_VALUE), 1, kv(2L, Long.MAX_VALUE), 1, kv(3L, -Long.MAX_VALUE), 1), Map.of()).rows())
                .isEqualTo(rows(Row.of(Long.MAX_VALUE), 1));
        PlanEvaluator.Result r = eval(sum, rows(kv(1L, Long.MAX_VALUE), 2), Map.of());
        assertThat(r.rows()).isEmpty();
        assertThat(r.errors()).isEqualTo(Map.of(PlanEvaluator.SUM_OVERFLOW, 1L));
    }

    @Test
    void reduceDropsRowsWhoseAggregateExpressionFails() {
        Plan p = new Plan.Reduce(Plan.get("a"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.COUNT, null),
                new Plan.Aggregate(AggregateFunc.SUM, call(Func.DIV, lit(10L, DatumType.INT64), col(0)))));
        PlanEvaluator.Result r = eval(p, rows(kv(0L, 1L), 2, kv(5L, 1L), 3), Map.of());
        assertThat(r.rows()).isEqualTo(rows(Row.of(3L, 6L), 1));
        assertThat(r.errors()).isEqualTo(Map.of("division by zero", 2L));
    }

    @Test
    void topKRanksCopiesWithOffsetLimitAndRowTiebreak() {
        Plan top = new Plan.TopK(Plan.get("a"), List.of(0), List.of(new Plan.Ordering(1, true, true)), 2L, 1);
        PlanEvaluator.Result r = eval(top, rows(kv(1L, 9L), 2, kv(1L, 5L), 3, kv(1L, null), 1, kv(2L, 1L), 1, kv(2L, 2L), 1, kv(2L, 3L), 1), Map.of());
        assertThat(r.rows()).isEqualTo(rows(kv(1L, 9L), 1, kv(1L, 5L), 1, kv(2L, 2L), 1, kv(2L, 1L), 1));
        Plan nullsFirst = new Plan.TopK(Plan.get("a"), List.of(), List.of(new Plan.Ordering(1, false, false)), 1L, 0);
        assertThat(eval(nullsFirst, rows(kv(1L, 9L), 1, kv(3L, null), 1, kv(2L, null), 1), Map.of()).rows()).isEqualTo(rows(kv(2L, null), 1));
        Plan noLimit = new Plan.TopK(Plan.get("a"), List.of(), List.of(), null, 2);
        assertThat(eval(noLimit, rows(kv(1L, 1L), 2, kv(2L, 2L), 2), Map.of()).rows()).isEqualTo(rows(kv(2L, 2L), 2));
    }

    @Test
    void thresholdNegateUnionAndErrorsFlowThrough() {
        Plan bad = new Plan.MapFilterProject(Plan.get("b"), new Mfp(List.of(call(Func.DIV, col(0), col(1))), List.of(), List.of(0, 1)));
        Plan except = new Plan.Threshold(new Plan.Union(List.of(Plan.get("a"), new Plan.Negate(bad))));
        PlanEvaluator.Result r = eval(except, rows(kv(1L, 1L), 3, kv(2L, 2L), 1), rows(kv(1L, 1L), 1, kv(2L, 2L), 2, kv(3L, 0L), 4));
        assertThat(r.rows()).isEqualTo(rows(kv(1L, 1L), 2));
        assertThat(r.errors()).as("negate does not negate errors").isEqualTo(Map.of("division by zero", 4L));
        assertThat(eval(new Plan.Negate(Plan.get("a")), rows(kv(1L, 1L), 3), Map.of()).rows()).isEqualTo(rows(kv(1L, 1L), -3));
        assertThat(eval(new Plan.ArrangeBy(Plan.get("a"), List.of(1)), rows(kv(1L, 1L), 3), Map.of()).rows()).isEqualTo(rows(kv(1L, 1L), 3));
        assertThat(eval(new Plan.Union(List.of(Plan.get("a"), new Plan.Negate(Plan.get("a")))), rows(kv(1L, 1L), 3), Map.of()).rows()).isEmpty();
    }

    @Test
    void constantCountsListings() {
        Plan c = new Plan.Constant(List.of(Row.of(1L), Row.of(1L), Row.of(2L)), List.of(DatumType.INT64));
        assertThat(eval(c, Map.of(), Map.of()).rows()).isEqualTo(rows(Row.of(1L), 2, Row.of(2L), 1));
    }

    @Test
    void dataflowObjectsSeeEarlierObjectsAndTheirErrors() {
        DataflowDescription d = new DataflowDescription(
                Map.of("a", dev.tandem.row.Schema.ofTypes(KV)), Map.of(),
                List.of(new DataflowDescription.BuildDesc("t1", new Plan.MapFilterProject(Plan.get("a"), new Mfp(List.of(call(Func.DIV, col(0), col(1))), List.of(), List.of(2)))),
                        new DataflowDescription.BuildDesc("t2", new Plan.Reduce(Plan.get("t1"), List.of(), List.of(new Plan.Aggregate(AggregateFunc.SUM, col(0)))))),
                List.of(), 0, null);
        Map<String, PlanEvaluator.Result> out = PlanEvaluator.evaluate(d, Map.of("a", rows(kv(6L, 2L), 1, kv(8L, 2L), 1, kv(1L, 0L), 1)));
        assertThat(out.get("t1").rows()).isEqualTo(rows(Row.of(3L), 1, Row.of(4L), 1));
        assertThat(out.get("t2").rows()).isEqualTo(rows(Row.of(7L), 1));
        assertThat(out.get("t2").errors()).isEqualTo(Map.of("division by zero", 1L));
    }

    /** {@code WITH RECURSIVE c(k, v) AS (SELECT * FROM a UNION [ALL] SELECT k, v + 1 FROM c WHERE v < 3)}. */
    private static Plan.Iterate counter(boolean all, long bound) {
        Mfp step = new Mfp(List.of(call(Func.ADD, col(1), lit(1L, DatumType.INT64))), List.of(call(Func.LT, col(1), lit(bound, DatumType.INT64))),
                List.of(0, 2));
        return new Plan.Iterate(Plan.get("a"), new Plan.MapFilterProject(Plan.get("w"), step), "w", all);
    }

    @Test
    void iterateIsPostgresRecursion() {
        Map<Row, Long> a = rows(kv(1L, 0L), 2, kv(2L, 2L), 1);
        assertThat(eval(counter(true, 3), a, Map.of()).rows()).isEqualTo(rows(kv(1L, 0L), 2, kv(1L, 1L), 2, kv(1L, 2L), 2, kv(1L, 3L), 2,
                kv(2L, 2L), 1, kv(2L, 3L), 1));
        assertThat(eval(counter(false, 3), a, Map.of()).rows()).isEqualTo(rows(kv(1L, 0L), 1, kv(1L, 1L), 1, kv(1L, 2L), 1, kv(1L, 3L), 1,
                kv(2L, 2L), 1, kv(2L, 3L), 1));
        assertThat(counter(true, 3).dependencies()).containsExactly("a");
        assertThat(counter(true, 3).types(TYPES::get, "")).isEqualTo(KV);
        Plan.Iterate endless = counter(true, Long.MAX_VALUE);
        assertThat(eval(endless, rows(kv(1L, 0L), 1), Map.of()).errors()).isEqualTo(Map.of(Plan.Iterate.TOO_MANY_ITERATIONS, 1L));
        Plan.Iterate mistyped = new Plan.Iterate(Plan.get("a"), new Plan.MapFilterProject(Plan.get("w"), Mfp.project(List.of(0))), "w", true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> mistyped.types(TYPES::get, "")).isInstanceOf(PlanException.class)
                .hasMessageContaining("step").hasMessageContaining("like its seed");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Plan.get("w").types(TYPES::get, "")).isInstanceOf(PlanException.class);
    }
}
