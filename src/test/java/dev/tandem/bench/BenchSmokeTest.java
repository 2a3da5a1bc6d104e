package dev.tandem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Every scenario of {@code tandem bench} runs end to end at a tiny scale against child servers started
 * from the test class path, and its JSON has every field of the stable schema, including each arm's GC
 * and memory at rest. No timing is asserted. The scenarios run concurrently, and the children use C1
 * only, to keep this test short.
 */
class BenchSmokeTest {

    private static final List<String> ARM_FIELDS = List.of("count", "rate", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms",
            "slope_ms_per_s", "errors", "timeouts", "incomplete", "by_second");

    /** Rows of {@code bench memory}: enough that the data outweighs what the heap sheds after start-up (a few MB). */
    private static final long MEMORY_ROWS = 100_000;

    /**
     * The scenarios run here. {@code replicas} needs a Kafka broker ({@code ReplicasScenarioSmokeTest} runs
     * it on demand). {@code subscribe-fanout} is left out: its hundreds of WebSocket clients would
     * crowd this concurrent run; smoke-run it by hand with {@code bin/dev bench subscribe-fanout --subscribers 8
     * --rate 50 --rows 20000 --duration 3s --churn-loops 1} (see docs/BENCHMARKS.md). {@code pg-compare} needs
     * PostgreSQL and pgbench and has its own schema: {@code PgCompareSmokeTest} runs it; so does
     * {@code pg-source}: {@code PgSourceSmokeTest}; {@code startup} reads with pgbench: {@code PgCompareSmokeTest};
     * {@code sql-shapes} needs PostgreSQL: {@code SqlShapesSmokeTest}.
     */
    private static final List<String> SCENARIOS = BenchOptions.SCENARIOS.stream()
            .filter(s -> !s.equals("replicas") && !s.equals("subscribe-fanout") && !s.equals("pg-compare") && !s.equals("pg-source")
                    && !s.equals("startup") && !s.equals("sql-shapes")).toList();

    @Test
    @Timeout(420)
    void everyScenarioWritesEveryField(@TempDir Path dir) throws Exception {
        assertThat(ChildServer.launchTarget()).as("from the test class path the child is started by class name")
                .contains("dev.tandem.TandemApplication");
        ExecutorService pool = Executors.newFixedThreadPool(SCENARIOS.size());
        try {
            List<CompletableFuture<JsonNode>> runs = SCENARIOS.stream()
                    .map(s -> CompletableFuture.supplyAsync(() -> run(dir, s), pool))
                    .toList();
            for (int i = 0; i < runs.size(); i++) {
                String scenario = SCENARIOS.get(i);
                JsonNode json = runs.get(i).get();
                JsonNode file = BenchHttp.JSON.readTree(Files.readString(dir.resolve(scenario + ".json")));
                assertThat(file.toString()).isEqualTo(json.toString());
                assertThat(json.path("scenario").asString()).isEqualTo(scenario);
                assertThat(json.path("settings").isObject()).isTrue();
                assertThat(json.path("ratios").isObject()).isTrue();
                assertThat(json.path("settings").path("child_jvm_options").asString()).contains("-XX:+UseSerialGC", "-Xlog:gc");
                List<String> arms = scenario.equals("memory") ? List.of("two_runtime") : List.of("two_runtime", "solo");
                assertThat(json.path("arms").propertyNames()).as("%s arms", scenario).containsExactlyInAnyOrderElementsOf(arms);
                for (String arm : arms) {
                    JsonNode a = json.path("arms").path(arm);
                    assertCauses(scenario + " " + arm, a, rowsAtRest(scenario));
                    if (scenario.equals("memory")) {
                        continue;
                    }
                    for (String f : ARM_FIELDS) {
                        assertThat(a.has(f)).as("%s: arms.%s.%s in %s", scenario, arm, f, a).isTrue();
                    }
                    assertThat(a.path("count").asLong()).as("%s %s answered reads", scenario, arm).isPositive();
                }
                switch (scenario) {
                    case "peek-throughput" -> {
                        assertThat(json.path("ratios").has("two_runtime_peeks_over_ceiling")).isTrue();
                        assertThat(json.path("arms").path("two_runtime").path("ceiling").has("rate")).isTrue();
                    }
                    case "sql-point-lookup" -> {
                        assertThat(json.path("ratios").has("two_runtime_sql_over_rest_p50")).isTrue();
                        assertThat(json.path("arms").path("two_runtime").path("rest").has("rate")).isTrue();
                        assertThat(json.path("arms").path("solo").path("churn").path("rest").has("rate")).isTrue();
                        assertThat(json.path("ratios").has("under_churn_sql_solo_over_two_runtime_p99")).isTrue();
                    }
                    case "maintenance-throughput" -> {
                        assertThat(json.path("ratios").has("two_runtime_maintenance_loss_pct")).isTrue();
                        for (String kind : List.of("arrange", "reduce", "join")) {
                            assertThat(json.path("arms").path("solo").path("maintenance").path(kind).has("loss_pct")).isTrue();
                        }
                    }
                    case "memory" -> assertThat(json.path("arms").path("two_runtime").path("hydrate_seconds").isNumber()).isTrue();
                    default -> {
                        JsonNode two = json.path("arms").path("two_runtime");
                        assertThat(two.has("churn_indexes_created")).isTrue();
                        assertThat(two.path("churn_warmup_s").asDouble()).isEqualTo(1.0);
                        assertThat(two.path("churn_timeline").isArray()).isTrue();
                        // One row per second of the window with a request: [second, requests, max ms, over 20 ms].
                        assertThat(two.path("by_second").size()).isPositive();
                        assertThat(two.path("by_second").get(0).size()).isEqualTo(4);
                        long perSecond = 0;
                        for (JsonNode row : two.path("by_second")) {
                            perSecond += row.get(1).asLong();
                        }
                        assertThat(perSecond).as("the timeline counts every answered read").isEqualTo(two.path("count").asLong());
                    }
                }
                if (!scenario.equals("memory")) {
                    assertThat(json.path("ratios").has("solo_over_two_runtime_p50")).isTrue();
                    assertThat(json.path("ratios").has("solo_over_two_runtime_p99")).isTrue();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static JsonNode run(Path dir, String scenario) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JsonNode json = BenchMain.run(new PrintStream(out, true, StandardCharsets.UTF_8), scenario,
                "--rows", Long.toString(scenario.equals("memory") ? MEMORY_ROWS : 20_000), "--point-rows", "2000",
                "--duration", "3s", "--probe", "1s", "--connections", "4",
                "--churn-loops", "1", "--churn-warmup", "1s", "--settle", "0s", "--heap-mb", "384", "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC", "--server-arg", "tandem.pgwire.warm-up-reads=0",
                "--out", dir.resolve(scenario + ".json").toString());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("| two_runtime", "| heap B/row |");
        if (!scenario.equals("memory")) {
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("| solo", "| ratio |");
        }
        return json;
    }

    /** The rows loaded before the arm's memory is taken at rest: {@code --rows}, plus {@code --point-rows} where both tables are loaded. */
    private static long rowsAtRest(String scenario) {
        return switch (scenario) {
            case "memory" -> MEMORY_ROWS;
            case "peek-throughput", "sql-point-lookup" -> 20_000;
            default -> 22_000;
        };
    }

    /** The arm's GC over its measured window and its memory at rest are there and sane (the collector asked for, no timing). */
    private static void assertCauses(String what, JsonNode arm, long rows) {
        JsonNode gc = arm.path("gc");
        assertThat(gc.path("collector").asString()).as("%s gc.collector", what).isEqualTo("Serial");
        assertThat(gc.path("window_s").asDouble()).as("%s gc.window_s", what).isPositive();
        assertThat(gc.path("pauses").asLong(-1)).as("%s gc.pauses", what).isNotNegative();
        assertThat(gc.path("pause_max_ms").asDouble(-1)).as("%s gc.pause_max_ms", what).isNotNegative()
                .isLessThanOrEqualTo(gc.path("pause_total_ms").asDouble());
        assertThat(gc.path("pause_kinds").isObject()).as("%s gc.pause_kinds", what).isTrue();
        assertThat(gc.path("allocation_stalls").asLong(-1)).as("%s gc.allocation_stalls", what).isZero();
        assertThat(gc.has("allocation_stall_total_ms") && gc.has("allocation_stall_max_ms")).as("%s stall fields", what).isTrue();
        // Allocation is Micrometer's young-generation growth at each collection plus the young pool's growth
        // since; in a window of a few seconds with no collection the pool reading may show none yet (seen once
        // in CI), so a positive figure is required only when the window saw a collection.
        assertThat(gc.path("allocated_bytes").asLong(-1)).as("%s gc.allocated_bytes in %s", what, gc).isNotNegative();
        assertThat(gc.path("allocation_rate_bytes_per_s").asLong(-1)).as("%s gc.allocation_rate_bytes_per_s", what).isNotNegative();
        if (gc.path("pauses").asLong() > 0) {
            assertThat(gc.path("allocated_bytes").asLong()).as("%s gc.allocated_bytes after a collection in %s", what, gc).isPositive();
        }
        assertThat(gc.path("cpu_seconds").asDouble()).as("%s gc.cpu_seconds", what).isPositive();
        // the window served HTTP requests: the child's event loops spent CPU in it, named in full
        assertThat(arm.path("cpu_by_thread").path("reactor-http-epoll").asDouble()).as("%s cpu_by_thread %s", what, arm.path("cpu_by_thread"))
                .isPositive();
        assertThat(arm.path("client_cpu_by_thread").isObject()).as("%s client_cpu_by_thread", what).isTrue();
        JsonNode m = arm.path("memory");
        assertThat(m.path("full_gc").asString()).as("%s memory.full_gc", what).isEqualTo("jcmd GC.run");
        assertThat(m.path("rows").asLong()).as("%s memory.rows", what).isEqualTo(rows);
        assertThat(m.path("baseline_heap_bytes").asLong()).as("%s memory.baseline_heap_bytes", what).isPositive();
        assertThat(m.path("heap_bytes").asLong()).as("%s memory.heap_bytes", what).isPositive();
        assertThat(m.path("heap_bytes_per_row").isNumber()).as("%s memory.heap_bytes_per_row in %s", what, m).isTrue();
        if (rows == MEMORY_ROWS) {
            assertThat(m.path("heap_bytes_per_row").asDouble()).as("%s memory.heap_bytes_per_row in %s", what, m).isPositive();
        }
        assertThat(m.path("rss_bytes").asLong()).as("%s memory.rss_bytes", what).isPositive();
        assertThat(m.path("baseline_rss_bytes").asLong()).as("%s memory.baseline_rss_bytes", what).isPositive();
        assertThat(m.path("rss_bytes_per_row").isNumber()).as("%s memory.rss_bytes_per_row", what).isTrue();
    }
}
