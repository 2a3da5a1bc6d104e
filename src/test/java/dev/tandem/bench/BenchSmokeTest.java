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
 * from the test class path, and its JSON has every field of the stable schema. No timing is asserted.
 * The four scenarios run concurrently, and the children use C1 only, to keep this test short.
 */
class BenchSmokeTest {

    private static final List<String> ARM_FIELDS = List.of("count", "rate", "p50_ms", "p95_ms", "p99_ms", "p999_ms", "max_ms",
            "slope_ms_per_s", "errors", "timeouts", "incomplete");

    @Test
    @Timeout(240)
    void everyScenarioWritesEveryField(@TempDir Path dir) throws Exception {
        assertThat(ChildServer.launchTarget()).as("from the test class path the child is started by class name")
                .contains("dev.tandem.TandemApplication");
        ExecutorService pool = Executors.newFixedThreadPool(BenchOptions.SCENARIOS.size());
        try {
            List<CompletableFuture<JsonNode>> runs = BenchOptions.SCENARIOS.stream()
                    .map(s -> CompletableFuture.supplyAsync(() -> run(dir, s), pool))
                    .toList();
            for (int i = 0; i < runs.size(); i++) {
                String scenario = BenchOptions.SCENARIOS.get(i);
                JsonNode json = runs.get(i).get();
                JsonNode file = BenchHttp.JSON.readTree(Files.readString(dir.resolve(scenario + ".json")));
                assertThat(file.toString()).isEqualTo(json.toString());
                assertThat(json.path("scenario").asString()).isEqualTo(scenario);
                assertThat(json.path("settings").isObject()).isTrue();
                assertThat(json.path("ratios").isObject()).isTrue();
                assertThat(json.path("ratios").has("solo_over_two_runtime_p50")).isTrue();
                assertThat(json.path("ratios").has("solo_over_two_runtime_p99")).isTrue();
                for (String arm : List.of("two_runtime", "solo")) {
                    JsonNode a = json.path("arms").path(arm);
                    assertThat(a.isObject()).as("%s arm %s", scenario, arm).isTrue();
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
                    case "maintenance-throughput" -> {
                        assertThat(json.path("ratios").has("two_runtime_maintenance_loss_pct")).isTrue();
                        for (String kind : List.of("arrange", "reduce", "join")) {
                            assertThat(json.path("arms").path("solo").path("maintenance").path(kind).has("loss_pct")).isTrue();
                        }
                    }
                    default -> assertThat(json.path("arms").path("two_runtime").has("churn_indexes_created")).isTrue();
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static JsonNode run(Path dir, String scenario) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JsonNode json = BenchMain.run(new PrintStream(out, true, StandardCharsets.UTF_8), scenario,
                "--rows", "20000", "--point-rows", "2000", "--duration", "3s", "--probe", "1s", "--connections", "4",
                "--churn-loops", "1", "--heap-mb", "384", "--jvm-arg", "-XX:TieredStopAtLevel=1", "--jvm-arg", "-XX:+UseSerialGC",
                "--out", dir.resolve(scenario + ".json").toString());
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("| two_runtime", "| solo", "| ratio |");
        return json;
    }
}
