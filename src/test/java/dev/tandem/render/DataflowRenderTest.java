package dev.tandem.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.plan.PlanEvaluator;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.json.JsonMapper;

/** Each operator, rendered with one and two workers, equals the reference evaluator at every time. */
class DataflowRenderTest {

    static final JsonMapper JSON = JsonMapper.builder().build();

    static List<Arguments> plans() {
        String[] plans = {
            "{\"op\":\"get\",\"id\":\"u1\"}",
            "{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"map\":[{\"call\":\"div\",\"args\":[{\"col\":1},{\"col\":0}]}],"
                    + "\"filter\":[{\"call\":\"gt\",\"args\":[{\"col\":1},{\"lit\":2}]}],\"project\":[0,2]}",
            "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[0],\"aggregates\":[{\"func\":\"count\"},"
                    + "{\"func\":\"sum\",\"expr\":{\"col\":1}},{\"func\":\"min\",\"expr\":{\"col\":1}},{\"func\":\"max\",\"expr\":{\"col\":1}}]}",
            "{\"op\":\"reduce\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[1],\"aggregates\":[]}",
            "{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"get\",\"id\":\"u2\"}],\"on\":[[[0,0],[1,0]]]}",
            "{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"get\",\"id\":\"u2\"},{\"op\":\"get\",\"id\":\"u1\"}],"
                    + "\"on\":[[[0,0],[1,0]],[[1,1],[2,1]]]}",
            "{\"op\":\"top_k\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"group_key\":[0],\"order_by\":[{\"col\":1,\"desc\":true,\"nulls_last\":true}],\"limit\":2,\"offset\":1}",
            "{\"op\":\"threshold\",\"input\":{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"negate\",\"input\":{\"op\":\"get\",\"id\":\"u2\"}}]}}",
            "{\"op\":\"arrange_by\",\"input\":{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"id\":\"u1\"},{\"op\":\"constant\",\"rows\":[[1,2],[3,null]],\"types\":[\"int64\",\"int64\"]}]},\"key\":[1]}",
        };
        List<Arguments> args = new ArrayList<>();
        for (String p : plans) {
            for (int w : new int[] {1, 2}) {
                args.add(Arguments.of(p, w));
            }
        }
        return args;
    }

    @ParameterizedTest(name = "[{1} workers] {0}")
    @MethodSource("plans")
    void matchesTheReferenceAtEveryTime(String planJson, int workers) {
        Plan plan = PlanJson.parse(JSON.readTree(planJson), "plan");
        Random random = new Random(planJson.hashCode() * 31L + workers);
        try (RenderHarness h = new RenderHarness(workers)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            h.createTable("u2", List.of(DatumType.INT64, DatumType.INT64));
            Map<String, Map<Row, Long>> contents = new HashMap<>();
            List<Long> times = new ArrayList<>();
            long asOf = 0;
            for (int step = 0; step < 40; step++) {
                String table = random.nextBoolean() ? "u1" : "u2";
                Map<Row, Long> diffs = randomWrite(random, contents.computeIfAbsent(table, x -> new HashMap<>()));
                if (diffs.isEmpty()) {
                    continue;
                }
                long ts = h.write(table, diffs);
                times.add(ts);
                if (step == 15) {
                    asOf = ts;
                }
            }
            Dataflow df = h.start("u9", plan, List.of(0), asOf);
            for (int step = 0; step < 30; step++) {
                String table = random.nextBoolean() ? "u1" : "u2";
                Map<Row, Long> diffs = randomWrite(random, contents.computeIfAbsent(table, x -> new HashMap<>()));
                if (!diffs.isEmpty()) {
                    times.add(h.write(table, diffs));
                }
            }
            long last = times.get(times.size() - 1);
            h.awaitSealed(df, last);
            var arr = df.exports().get(0);
            int checked = 0;
            for (long t : times) {
                if (t < asOf) {
                    continue;
                }
                PlanEvaluator.Result expected = h.expected(plan, t);
                assertThat(RenderHarness.read(arr, t)).as("at %d (as_of %d)", t, asOf).isEqualTo(expected);
                checked++;
            }
            assertThat(checked).isGreaterThan(20);
        }
    }

    @Test
    void aDataflowOfConstantsIsCompleteAtEveryLaterTime() {
        Plan plan = PlanJson.parse(JSON.readTree("{\"op\":\"constant\",\"rows\":[[1,2],[3,null]],\"types\":[\"int64\",\"int64\"]}"), "plan");
        try (RenderHarness h = new RenderHarness(2)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            long asOf = h.write("u1", Map.of(Row.of(1L, 1L), 1L));
            Dataflow df = h.start("u9", plan, List.of(0), asOf);
            long later = h.write("u1", Map.of(Row.of(2L, 2L), 1L));
            h.awaitSealed(df, later + 1_000_000);
            assertThat(RenderHarness.read(df.exports().get(0), later + 1_000_000)).isEqualTo(h.expected(plan, asOf));
        }
    }

    @ParameterizedTest(name = "{0} workers")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
    void anImportedIndexKeepsItsUpdatesBetweenAsOfAndTheFirstRoundsFrontier(int workers) {
        try (RenderHarness h = new RenderHarness(workers)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            Schema schema = h.schemas.get("u1");
            long t1 = h.write("u1", Map.of(Row.of(1L, 1L), 1L, Row.of(2L, 2L), 1L));
            Dataflow base = Dataflow.render("i1", new DataflowDescription(Map.of("u1", schema), Map.of(),
                    List.of(new DataflowDescription.BuildDesc("b1", Plan.get("u1"))), List.of(new DataflowDescription.IndexExport("i1", "b1", List.of(0))),
                    t1, null), new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
            base.schedule();
            long t2 = h.write("u1", Map.of(Row.of(1L, 1L), -1L, Row.of(3L, 3L), 1L));
            h.awaitSealed(base, t2);
            Plan plan = new Plan.MapFilterProject(Plan.get("i1"), dev.tandem.expr.Mfp.filter(List.of()));
            Dataflow df = Dataflow.render("x1", new DataflowDescription(Map.of(), Map.of("i1", new DataflowDescription.IndexImport("u1", List.of(0), schema)),
                    List.of(new DataflowDescription.BuildDesc("o1", plan)), List.of(new DataflowDescription.IndexExport("x1", "o1", List.of(1))),
                    t1, null), new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
            df.schedule();
            h.awaitSealed(df, t2);
            assertThat(RenderHarness.read(df.exports().get(0), t1).rows()).isEqualTo(Map.of(Row.of(1L, 1L), 1L, Row.of(2L, 2L), 1L));
            assertThat(RenderHarness.read(df.exports().get(0), t2).rows()).isEqualTo(Map.of(Row.of(2L, 2L), 1L, Row.of(3L, 3L), 1L));
        }
    }

    /** Errors of one object reach only the exports downstream of it, once per path (o2 reads o1 twice). */
    @Test
    void eachExportHasTheErrorsOfItsOwnObject() {
        Plan o2 = PlanJson.parse(JSON.readTree("{\"op\":\"union\",\"inputs\":[{\"op\":\"get\",\"id\":\"o1\"},{\"op\":\"get\",\"id\":\"o1\"}]}"), "p");
        Plan o1 = PlanJson.parse(JSON.readTree("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},\"map\":[{\"call\":\"div\",\"args\":[{\"col\":0},{\"col\":1}]}]}"), "p");
        Plan o3 = PlanJson.parse(JSON.readTree("{\"op\":\"get\",\"id\":\"u1\"}"), "p");
        try (RenderHarness h = new RenderHarness(2)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            Schema schema = h.schemas.get("u1");
            long t1 = h.write("u1", Map.of(Row.of(1L, 0L), 1L, Row.of(2L, 2L), 1L));
            DataflowDescription desc = new DataflowDescription(Map.of("u1", schema), Map.of(),
                    List.of(new DataflowDescription.BuildDesc("o1", o1), new DataflowDescription.BuildDesc("o2", o2), new DataflowDescription.BuildDesc("o3", o3)),
                    List.of(new DataflowDescription.IndexExport("x1", "o1", List.of(0)), new DataflowDescription.IndexExport("x2", "o2", List.of(0)),
                            new DataflowDescription.IndexExport("x3", "o3", List.of(0))), t1, null);
            Dataflow df = Dataflow.render("x1", desc, new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
            df.schedule();
            h.awaitSealed(df, t1);
            Map<String, PlanEvaluator.Result> expected = PlanEvaluator.evaluate(desc, Map.of("u1", Map.of(Row.of(1L, 0L), 1L, Row.of(2L, 2L), 1L)));
            for (int i = 0; i < 3; i++) {
                assertThat(RenderHarness.read(df.exports().get(i), t1)).as(df.exports().get(i).id()).isEqualTo(expected.get("o" + (i + 1)));
            }
        }
    }

    @ParameterizedTest(name = "{0} workers")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
    void aJoinReadingAnImportedIndexInPlaceKeepsItsErrors(int workers) {
        try (RenderHarness h = new RenderHarness(workers)) {
            h.createTable("u1", List.of(DatumType.INT64, DatumType.INT64));
            long t1 = h.write("u1", Map.of(Row.of(1L, 0L), 1L, Row.of(2L, 2L), 1L));
            Plan divided = PlanJson.parse(JSON.readTree("{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"id\":\"u1\"},"
                    + "\"map\":[{\"call\":\"div\",\"args\":[{\"col\":0},{\"col\":1}]}]}"), "plan");
            Dataflow base = Dataflow.render("i1", new DataflowDescription(Map.of("u1", h.schemas.get("u1")), Map.of(),
                    List.of(new DataflowDescription.BuildDesc("b1", divided)), List.of(new DataflowDescription.IndexExport("i1", "b1", List.of(0))),
                    t1, null), new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
            base.schedule();
            Schema indexed = Schema.ofTypes(List.of(DatumType.INT64, DatumType.INT64, DatumType.INT64));
            Plan join = new Plan.Join(List.of(Plan.get("u1"), Plan.get("i1")), List.of(List.of(new Plan.JoinColumn(0, 0), new Plan.JoinColumn(1, 0))));
            Dataflow df = Dataflow.render("x1", new DataflowDescription(Map.of("u1", h.schemas.get("u1")),
                    Map.of("i1", new DataflowDescription.IndexImport("b1", List.of(0), indexed)),
                    List.of(new DataflowDescription.BuildDesc("o1", join)), List.of(new DataflowDescription.IndexExport("x1", "o1", List.of(0))),
                    t1, null), new Dataflow.Env(h.pool, h.storage, h.registry, DataflowListener.NONE, System::currentTimeMillis, Dataflow.StepObserver.NONE));
            df.schedule();
            long t2 = h.write("u1", Map.of(Row.of(3L, 0L), 2L));
            h.awaitSealed(df, t2);
            assertThat(RenderHarness.read(df.exports().get(0), t1))
                    .isEqualTo(new PlanEvaluator.Result(Map.of(Row.of(2L, 2L, 2L, 2L, 1L), 1L), Map.of("division by zero", 1L)));
            assertThat(RenderHarness.read(df.exports().get(0), t2).errors()).isEqualTo(Map.of("division by zero", 3L));
        }
    }

    /** Inserts and deletes of rows over a small domain (with NULLs), keeping multiplicities non-negative. */
    static Map<Row, Long> randomWrite(Random random, Map<Row, Long> contents) {
        Map<Row, Long> diffs = new HashMap<>();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
            if (!contents.isEmpty() && random.nextInt(3) == 0) {
                List<Row> present = new ArrayList<>(contents.keySet());
                Row r = present.get(random.nextInt(present.size()));
                long have = contents.get(r) + diffs.getOrDefault(r, 0L);
                if (have > 0) {
                    diffs.merge(r, -1L, Long::sum);
                }
            } else {
                Long b = random.nextInt(6) == 0 ? null : (long) random.nextInt(6);
                Row r = Row.pack(List.of(DatumType.INT64, DatumType.INT64), java.util.Arrays.asList((long) random.nextInt(4), b));
                diffs.merge(r, 1L, Long::sum);
            }
        }
        diffs.values().removeIf(d -> d == 0);
        diffs.forEach((r, d) -> contents.merge(r, d, (a, b) -> a + b == 0 ? null : a + b));
        return diffs;
    }
}
