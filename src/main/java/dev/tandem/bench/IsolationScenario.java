package dev.tandem.bench;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code read-isolation} (point lookups) and {@code introspection-under-hydration} (reads of
 * {@code tandem_hydration_progress}): open-loop reads at a fixed rate while hydration churn keeps
 * maintenance saturated, in a two-runtime arm and a {@code SOLO} arm on the same data and rate.
 */
final class IsolationScenario {

    private static final String INTROSPECTION_URI = "/v1/introspection/tandem_hydration_progress";

    private IsolationScenario() {
    }

    static BenchReport run(BenchOptions o, boolean introspection) {
        long rows = o.rowsOr(2_000_000);
        Duration duration = o.durationOr(Duration.ofSeconds(60));
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("point_rows", o.pointRows());
        settings.put("duration_s", duration.toMillis() / 1000.0);
        settings.put("reads", introspection ? "GET " + INTROSPECTION_URI
                : "GET /v1/indexes/" + BenchWorkload.POINT_INDEX + "/rows?key=K&isolation=serializable");
        settings.put("churn", o.churnLoops() + " loops creating, hydrating and dropping indexes on big_count (reduce) "
                + "and big_self_join (join), alternating");
        Double rate = o.rate();
        settings.put("rate_source", rate != null ? "--rate" : "30% of the closed-loop capacity probed on the two_runtime arm");
        for (String arm : o.arms()) {
            ObjectNode json = report.arm(arm);
            try (BenchArm a = BenchArm.start(arm, o, rows)) {
                json.put("load_seconds", LatencySummary.round(a.loadData(rows, o.pointRows())));
                a.recordAtRest(json, rows + o.pointRows());
                Supplier<Mono<Integer>> read = reads(a.load, introspection, o.pointRows());
                Supplier<Mono<Integer>> closedReads = reads(a.closed, introspection, o.pointRows());
                LoadGenerator.closedLoop(closedReads, o.connections(), o.probe());
                LatencySummary probe = LoadGenerator.closedLoop(closedReads, o.connections(), o.probe());
                BenchMain.log("[%s] closed-loop probe after as long a warm-up (%d connections, no churn): %.0f reads/s, p50 %s ms", arm,
                        o.connections(), probe.rate(), BenchReport.ms(probe.p50Ms()));
                json.put("probe_capacity_per_s", LatencySummary.round(probe.rate()));
                if (rate == null) {
                    rate = Math.max(1.0, Math.floor(0.3 * probe.rate()));
                }
                json.put("target_rate", rate);
                BenchArm.loadAverage(json, "load_average_before");
                try (HydrationChurn churn = new HydrationChurn(a.server.port(), o.churnLoops())) {
                    churn.awaitStarted();
                    // The same reads run through the churn's warm-up, unmeasured: the window is a slice of a steady state.
                    Thread.sleep(1000);
                    churn.warmUp(read, rate, o.churnWarmup(), json);
                    BenchMain.log("[%s] churn under way for %s (%d hydrated); open loop at %.0f reads/s for %s", arm, o.churnWarmup(),
                            churn.hydratedBeforeWindow(), rate, duration);
                    ChildResources.Window window = a.window();
                    LatencySummary s = LoadGenerator.openLoop(read, rate, duration, Duration.ofSeconds(30).plus(duration));
                    window.finish(json);
                    s.writeTo(json);
                    churn.writeTo(json);
                    report.row(arm, s);
                    BenchMain.log("[%s] open loop done: p50 %s ms, p99 %s ms; stopping the churn", arm, BenchReport.ms(s.p50Ms()),
                            BenchReport.ms(s.p99Ms()));
                }
                BenchArm.loadAverage(json, "load_average_after");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        settings.put("rate", rate);
        ObjectNode two = report.measured(BenchReport.TWO_RUNTIME);
        ObjectNode solo = report.measured(BenchReport.SOLO);
        report.ratio("solo_over_two_runtime_p50", value(solo, "p50_ms"), value(two, "p50_ms"));
        report.ratio("solo_over_two_runtime_p99", value(solo, "p99_ms"), value(two, "p99_ms"));
        return report;
    }

    private static Supplier<Mono<Integer>> reads(BenchHttp http, boolean introspection, long pointRows) {
        return introspection ? () -> http.status(INTROSPECTION_URI) : BenchWorkload.pointLookup(http, pointRows);
    }

    /** A number of {@code node} (null: an arm or a part of one that did not run), or null. */
    static Double value(ObjectNode node, String field) {
        return node != null && node.path(field).isNumber() ? node.path(field).asDouble() : null;
    }
}
