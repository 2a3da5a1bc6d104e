package dev.tandem.bench;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code peek-throughput}: the closed-loop maximum of point lookups per second over HTTP, next to the
 * ceiling of the same HTTP stack answering a constant ({@code GET /v1/ping}), measured in the same run
 * against the same child server; no maintenance work besides the server's own.
 */
final class PeekThroughputScenario {

    private PeekThroughputScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long rows = o.rowsOr(100_000);
        Duration duration = o.durationOr(Duration.ofSeconds(20));
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("point_rows", rows);
        settings.put("duration_s", duration.toMillis() / 1000.0);
        settings.put("connections", o.connections());
        settings.put("reads", "GET /v1/indexes/" + BenchWorkload.POINT_INDEX + "/rows?key=K&isolation=serializable");
        settings.put("ceiling", "GET /v1/ping");
        for (String arm : o.arms()) {
            ObjectNode json = report.arm(arm);
            try (BenchArm a = BenchArm.start(arm, o, rows)) {
                json.put("load_seconds", LatencySummary.round(a.loadData(0, rows)));
                a.recordAtRest(json, rows);
                Supplier<Mono<Integer>> ping = () -> a.closed.status("/v1/ping");
                Supplier<Mono<Integer>> peek = BenchWorkload.pointLookup(a.closed, rows);
                LoadGenerator.closedLoop(ping, o.connections(), o.probe());
                LoadGenerator.closedLoop(peek, o.connections(), o.probe());
                BenchArm.loadAverage(json, "load_average_before");
                ChildResources.Window window = a.window();
                LatencySummary ceiling = LoadGenerator.closedLoop(ping, o.connections(), duration);
                LatencySummary peeks = LoadGenerator.closedLoop(peek, o.connections(), duration);
                window.finish(json);
                BenchArm.loadAverage(json, "load_average_after");
                peeks.writeTo(json);
                ceiling.writeTo(json.putObject("ceiling"));
                report.row(arm + " peeks", peeks);
                report.row(arm + " ceiling (/v1/ping)", ceiling);
                BenchMain.log("[%s] peeks %.0f/s, ceiling %.0f/s", arm, peeks.rate(), ceiling.rate());
            }
        }
        ObjectNode two = report.measured(BenchReport.TWO_RUNTIME);
        ObjectNode solo = report.measured(BenchReport.SOLO);
        report.ratio("two_runtime_peeks_over_ceiling", IsolationScenario.value(two, "rate"),
                IsolationScenario.value((ObjectNode) two.get("ceiling"), "rate"));
        report.ratio("solo_peeks_over_ceiling", IsolationScenario.value(solo, "rate"),
                IsolationScenario.value((ObjectNode) solo.get("ceiling"), "rate"));
        report.ratio("solo_over_two_runtime_p50", IsolationScenario.value(solo, "p50_ms"), IsolationScenario.value(two, "p50_ms"));
        report.ratio("solo_over_two_runtime_p99", IsolationScenario.value(solo, "p99_ms"), IsolationScenario.value(two, "p99_ms"));
        return report;
    }
}
