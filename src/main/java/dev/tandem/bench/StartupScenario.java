package dev.tandem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code startup}: the first seconds of a fresh server. Each run starts a new {@link ChildServer} (two
 * runtimes, the JVM options and start-up warm-up of {@code bin/dev server}), creates and loads
 * {@code points} ({@code --point-rows}) over REST, creates its index and waits until it is hydrated, and
 * then at once reads it with {@link Pgbench pgbench} at {@code --rate} (5,000/s) for {@code --duration}
 * (30 s) in each of {@code --modes}, open loop, no churn: what a client that connects the moment the data
 * is in sees while the server's JIT is still compiling its read path. Every read counts (no warm-up cut),
 * latency from its scheduled start. {@code --runs} fresh servers per mode, as the spread between two starts
 * is large.
 */
final class StartupScenario {

    /** The target of the first seconds: no read over this. */
    static final double TARGET_MAX_MS = 50;

    private static final String USER = "bench";
    private static final String DATABASE = "tandem";

    private StartupScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long pointRows = o.pointRows();
        double rate = o.rate() == null ? 5000 : o.rate();
        Duration window = Duration.ofSeconds(Math.max(1, (long) Math.ceil(o.durationOr(Duration.ofSeconds(30)).toMillis() / 1000.0)));
        Path pgbenchPath = PostgresServer.requirePgbench(PostgresServer.binaries(o.pg().pgBin()).orElse(null));
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("point_rows", pointRows);
        settings.put("rate", rate);
        settings.put("duration_s", window.toSeconds());
        settings.put("runs", o.runs());
        settings.put("clients", PgCompareScenario.OPEN_LOOP_CLIENTS);
        ArrayNode modes = settings.putArray("modes");
        o.pg().modes().forEach(modes::add);
        settings.put("target", "no read over " + BenchReport.fmt(TARGET_MAX_MS, 0) + " ms");
        settings.put("latency", "from each transaction's scheduled start (pgbench -R), every transaction of the run counted");
        Path work;
        try {
            work = Files.createTempDirectory("tandem-bench-startup-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Pgbench pgbench = new Pgbench(pgbenchPath, work, pointRows);
            settings.put("pgbench_version", pgbench.version());
            settings.put("pgbench_command", pgbench.template(PgCompareScenario.OPEN_LOOP_CLIENTS));
            ObjectNode runs = report.arm(BenchOptions.TANDEM).putObject("runs");
            report.extra("| mode | run | start-up s | load s | p50 ms | p99 ms | p99.9 ms | max ms | reads over 20 ms | slowest second | load avg before |");
            report.extra("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |");
            for (String mode : o.pg().modes()) {
                for (int i = 1; i <= o.runs(); i++) {
                    ObjectNode run = runs.putObject(mode + "_" + i);
                    oneRun(o, pgbench, mode, rate, window, pointRows, run);
                    report.extra(row(mode, i, run));
                }
            }
        } finally {
            ChildServer.deleteTree(work);
        }
        return report;
    }

    /** A fresh server: started, loaded, indexed, then read at once; the figures into {@code run}. */
    private static void oneRun(BenchOptions o, Pgbench pgbench, String mode, double rate, Duration window, long pointRows, ObjectNode run) {
        BenchArm.loadAverage(run, "load_average_before");
        long start = System.nanoTime();
        try (ChildServer server = ChildServer.start(true, o.heapMbFor(pointRows), o.jvmArgs(), o.serverArgs(), Duration.ofMinutes(3));
                BenchHttp http = new BenchHttp(server.port(), "startup", 4)) {
            double started = (System.nanoTime() - start) / 1e9;
            long loadStart = System.nanoTime();
            BenchWorkload.createPointsTable(http);
            BenchWorkload.loadPoints(http, pointRows);
            BenchWorkload.createPointIndex(http);
            double loaded = (System.nanoTime() - loadStart) / 1e9;
            run.put("start_seconds", LatencySummary.round(started));
            run.put("load_seconds", LatencySummary.round(loaded));
            BenchMain.log("[startup] %s run: server pid %d ready in %.1f s, %d rows loaded and indexed in %.1f s; pgbench -M %s -R %s for %d s",
                    mode, server.pid(), started, pointRows, loaded, mode, BenchReport.fmt(rate, 0), window.toSeconds());
            Pgbench.Target target = new Pgbench.Target(BenchOptions.TANDEM, server.pgwirePort(), USER, DATABASE);
            // opened before the reads start: its first scrape of the server's metrics (a quarter of a second of one
            // core on a fresh server) must not compete with the first reads it measures
            ChildResources.Window resources = new ChildResources.Window(server, http);
            Pgbench.Result result = pgbench.run(target, mode, rate, PgCompareScenario.OPEN_LOOP_CLIENTS, Duration.ZERO, window, () -> { }, () -> { });
            result.writeTo(run);
            resources.finish(run);
            run.put("reads_over_20_ms", overSlow(run.path("by_second")));
            BenchMain.log("[startup] %s run: p50 %s ms, p99 %s ms, max %s ms, %d reads over 20 ms", mode, BenchReport.ms(result.latency().p50Ms()),
                    BenchReport.ms(result.latency().p99Ms()), BenchReport.ms(result.latency().maxMs()), run.path("reads_over_20_ms").asLong());
        }
    }

    /** The reads over {@link LatencyRecorder#SLOW_MICROS} in the per-second timeline's last column. */
    private static long overSlow(JsonNode bySecond) {
        long n = 0;
        for (JsonNode second : bySecond) {
            n += second.path(3).asLong();
        }
        return n;
    }

    private static String row(String mode, int i, ObjectNode run) {
        JsonNode slowest = null;
        for (JsonNode second : run.path("by_second")) {
            if (slowest == null || second.path(2).asDouble() > slowest.path(2).asDouble()) {
                slowest = second;
            }
        }
        String slowestText = slowest == null ? "—" : "s " + slowest.path(0).asLong() + ": max " + BenchReport.fmt(slowest.path(2).asDouble(), 1)
                + " ms, " + slowest.path(3).asLong() + " over 20 ms";
        return "| " + mode + " | " + i + " | " + BenchReport.num(run.path("start_seconds"), 1) + " | " + BenchReport.num(run.path("load_seconds"), 1)
                + " | " + ms(run, "p50_ms") + " | " + ms(run, "p99_ms") + " | " + ms(run, "p999_ms") + " | " + ms(run, "max_ms") + " | "
                + run.path("reads_over_20_ms").asLong() + " | " + slowestText + " | " + BenchReport.num(run.path("load_average_before"), 1) + " |";
    }

    private static String ms(JsonNode run, String field) {
        return BenchReport.ms(run.path(field).isNumber() ? run.path(field).asDouble() : null);
    }
}
