package dev.tandem.bench;

import java.time.Duration;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code memory}: what the data costs at rest. One child server with the default JVM options loads
 * {@code big(id, g, v)} through the API, indexes it on {@code id}, waits until the index has hydrated
 * and memory has settled ({@link ChildResources#atRest}), and reports the heap after a full collection, the bytes of live
 * objects and the RSS, absolute and per row above the same figures taken right after start-up.
 */
final class MemoryScenario {

    static final String INDEX = "big_by_id";

    private MemoryScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long rows = o.rowsOr(1_000_000);
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("data", "big(id, g, v) of three int64 columns, loaded " + BenchWorkload.BATCH_ROWS
                + " rows per POST /v1/tables/big/rows, and the index " + INDEX + " on big(id)");
        settings.put("measure", "heap = used heap outside eden right after jcmd GC.run; live = total of jcmd GC.class_histogram (reachable objects only); RSS = VmRSS; "
                + "per row = (at rest - after start-up) / rows");
        String arm = BenchReport.TWO_RUNTIME;
        ObjectNode json = report.arm(arm);
        try (BenchArm a = BenchArm.start(arm, o, rows)) {
            BenchArm.loadAverage(json, "load_average_before");
            ChildResources.Window window = a.window();
            long start = System.nanoTime();
            BenchWorkload.createBigTable(a.admin);
            BenchWorkload.loadBig(a.admin, rows);
            double load = (System.nanoTime() - start) / 1e9;
            BenchMain.log("[%s] loaded %d rows in %.1f s; indexing them on id", arm, rows, load);
            BenchWorkload.createIndex(a.admin, INDEX, "big", "id");
            double hydrate = BenchWorkload.awaitHydrated(a.admin, INDEX, Duration.ofHours(1), () -> false);
            window.finish(json);
            json.put("load_seconds", LatencySummary.round(load));
            json.put("hydrate_seconds", LatencySummary.round(hydrate));
            a.recordAtRest(json, rows);
            BenchArm.loadAverage(json, "load_average_after");
        }
        ObjectNode m = (ObjectNode) json.get("memory");
        report.extra("| rows | heap after start-up MB | heap at rest MB | heap bytes/row | live objects bytes/row | RSS after start-up MB"
                + " | RSS at rest MB | RSS bytes/row |");
        report.extra("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        report.extra(String.join(" | ", "| " + rows, BenchReport.mb(m.path("baseline_heap_bytes")), BenchReport.mb(m.path("heap_bytes")),
                BenchReport.num(m.path("heap_bytes_per_row"), 1), BenchReport.num(m.path("live_bytes_per_row"), 1),
                BenchReport.mb(m.path("baseline_rss_bytes")),
                BenchReport.mb(m.path("rss_bytes")), BenchReport.num(m.path("rss_bytes_per_row"), 1)) + " |");
        return report;
    }
}
