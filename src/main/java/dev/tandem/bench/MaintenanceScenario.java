package dev.tandem.bench;

import java.time.Duration;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code maintenance-throughput}: how fast maintenance hydrates an index over the large table — arrange
 * (an index on the table), reduce (on the count-by-key view), join (on the self-join view) — in updates
 * (input rows) per second from creation to hydrated, idle and while closed-loop point lookups saturate
 * the interactive side; the loss is what saturation costs maintenance.
 */
final class MaintenanceScenario {

    private record Kind(String name, String on, String key) {
    }

    private static final List<Kind> KINDS = List.of(new Kind("arrange", "big", "g"), new Kind("reduce", "big_count", "c0"),
            new Kind("join", "big_self_join", "c0"));

    private MaintenanceScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long rows = o.rowsOr(1_000_000);
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("point_rows", o.pointRows());
        settings.put("saturation", "closed-loop point lookups on " + BenchWorkload.POINT_INDEX + ", " + o.connections()
                + " connections, started 1 s before the index is created");
        settings.put("warm_up", "saturating lookups and unmeasured hydrations of every kind for --churn-warmup ("
                + o.churnWarmup().toSeconds() + " s) before the measured ones");
        settings.put("measure", "seconds from POST /v1/indexes to hydrated (status polled every 20 ms); updates/s = rows / seconds");
        report.extra("| arm | kind | idle s | idle updates/s | saturated s | saturated updates/s | loss % |");
        report.extra("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
        for (String arm : o.arms()) {
            ObjectNode json = report.arm(arm);
            try (BenchArm a = BenchArm.start(arm, o, rows)) {
                json.put("load_seconds", LatencySummary.round(a.loadData(rows, o.pointRows())));
                a.recordAtRest(json, rows + o.pointRows());
                LoadGenerator.closedLoop(BenchWorkload.pointLookup(a.closed, o.pointRows()), o.connections(), o.probe());
                warmUp(a, o, json);
                BenchArm.loadAverage(json, "load_average_before");
                LatencyRecorder saturating = new LatencyRecorder();
                double saturatedSeconds = 0;
                double idleTotal = 0;
                double saturatedTotal = 0;
                ObjectNode kinds = json.putObject("maintenance");
                int n = 0;
                ChildResources.Window window = a.window();
                for (Kind kind : KINDS) {
                    double idle = hydrate(a, kind, "idle_" + n++);
                    LoadGenerator.Background sat = LoadGenerator.background(BenchWorkload.pointLookup(a.closed, o.pointRows()),
                            o.connections(), saturating);
                    Thread.sleep(1000);
                    double saturated = hydrate(a, kind, "sat_" + n++);
                    saturatedSeconds += sat.stop();
                    idleTotal += idle;
                    saturatedTotal += saturated;
                    double loss = 100.0 * (1 - idle / saturated);
                    ObjectNode k = kinds.putObject(kind.name());
                    k.put("idle_seconds", LatencySummary.round(idle));
                    k.put("idle_updates_per_s", Math.round(rows / idle));
                    k.put("saturated_seconds", LatencySummary.round(saturated));
                    k.put("saturated_updates_per_s", Math.round(rows / saturated));
                    k.put("loss_pct", LatencySummary.round(loss));
                    report.extra("| " + arm + " | " + kind.name() + " | " + BenchReport.fmt(idle, 2) + " | " + Math.round(rows / idle)
                            + " | " + BenchReport.fmt(saturated, 2) + " | " + Math.round(rows / saturated) + " | "
                            + BenchReport.fmt(loss, 1) + " |");
                    BenchMain.log("[%s] %s: idle %.2f s, saturated %.2f s, loss %.1f%%", arm, kind.name(), idle, saturated, loss);
                }
                window.finish(json);
                double loss = 100.0 * (1 - idleTotal / saturatedTotal);
                json.put("maintenance_loss_pct", LatencySummary.round(loss));
                LatencySummary s = saturating.summary(saturatedSeconds);
                s.writeTo(json);
                report.row(arm + " (saturating lookups)", s);
                BenchArm.loadAverage(json, "load_average_after");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        ObjectNode two = report.measured(BenchReport.TWO_RUNTIME);
        ObjectNode solo = report.measured(BenchReport.SOLO);
        LatencySummary.put(report.ratios(), "two_runtime_maintenance_loss_pct", IsolationScenario.value(two, "maintenance_loss_pct"));
        LatencySummary.put(report.ratios(), "solo_maintenance_loss_pct", IsolationScenario.value(solo, "maintenance_loss_pct"));
        report.ratio("solo_over_two_runtime_p50", IsolationScenario.value(solo, "p50_ms"), IsolationScenario.value(two, "p50_ms"));
        report.ratio("solo_over_two_runtime_p99", IsolationScenario.value(solo, "p99_ms"), IsolationScenario.value(two, "p99_ms"));
        return report;
    }

    /**
     * Runs saturating lookups and hydrations of every kind, unmeasured, for {@code --churn-warmup}, so the
     * measured hydrations see a server that has compiled both (in the first seconds the JIT compiler takes
     * more CPU than either, and the loss then says more about it than about reads).
     */
    private static void warmUp(BenchArm a, BenchOptions o, ObjectNode json) throws InterruptedException {
        json.put("warm_up_s", o.churnWarmup().toMillis() / 1000.0);
        if (o.churnWarmup().isZero()) {
            json.put("warm_up_hydrations", 0);
            return;
        }
        LoadGenerator.Background sat = LoadGenerator.background(BenchWorkload.pointLookup(a.closed, o.pointRows()),
                o.connections(), new LatencyRecorder());
        long end = System.nanoTime() + o.churnWarmup().toNanos();
        int n = 0;
        while (System.nanoTime() < end) {
            for (Kind kind : KINDS) {
                hydrate(a, kind, "warm_" + n++);
            }
        }
        sat.stop();
        json.put("warm_up_hydrations", n);
        BenchMain.log("[%s] warm-up: %d unmeasured hydrations under saturating lookups", a.name, n);
    }

    /** Creates an index of {@code kind}, waits until it has hydrated, drops it; returns the seconds to hydrate. */
    private static double hydrate(BenchArm a, Kind kind, String suffix) {
        String index = "m_" + kind.name() + "_" + suffix;
        long start = System.nanoTime();
        BenchWorkload.createIndex(a.admin, index, kind.on(), kind.key());
        BenchWorkload.awaitHydrated(a.admin, index, Duration.ofHours(1), () -> false);
        double seconds = (System.nanoTime() - start) / 1e9;
        a.admin.delete("/v1/indexes/" + index);
        return seconds;
    }
}
