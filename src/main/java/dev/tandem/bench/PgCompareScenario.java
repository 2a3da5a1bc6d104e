package dev.tandem.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code pg-compare}: Tandem beside PostgreSQL on the same machine, both read by PostgreSQL's own load
 * generator {@link Pgbench pgbench} over the wire protocol while the same {@link SqlChurn} of indexed views
 * over the large table runs against the system being read. Both servers hold the same data
 * ({@code points(id, v)}, {@code --point-rows}, with an index on {@code id} — PostgreSQL: its primary key —
 * and {@code big(id, g, v)}, {@code --rows}); each arm (a rate, or the closed-loop capacity run, in one
 * query mode) measures the systems one after the other, never both at once, the other idle. Tandem is
 * a {@link ChildServer} in its default two-runtime mode, loaded over REST; PostgreSQL a
 * {@link PostgresServer}, loaded with {@code COPY}.
 */
final class PgCompareScenario {

    /** pgbench's clients in the open-loop runs ({@code -c}). */
    static final int OPEN_LOOP_CLIENTS = 8;

    /** Tandem's wire protocol accepts any user and database when no credentials are configured. */
    private static final String TANDEM_USER = "bench";
    private static final String TANDEM_DATABASE = "tandem";

    private PgCompareScenario() {
    }

    /** One arm of the sweep: a query mode at a rate, or in the closed-loop capacity run ({@code rate} null). */
    record Arm(String mode, Double rate) {

        /** The arm's key in each system's {@code runs}: {@code <mode>_<rate>} or {@code <mode>_capacity}. */
        String key() {
            return mode + "_" + (rate == null ? "capacity" : BenchReport.fmt(rate, 0));
        }

        String rateLabel(int capacityClients) {
            return rate == null ? "capacity (" + capacityClients + " clients)" : BenchReport.fmt(rate, 0) + "/s";
        }
    }

    /** The arms of the sweep: each rate and then the capacity run, each in every mode. */
    static List<Arm> arms(BenchOptions.PgCompare pg) {
        List<Arm> arms = new ArrayList<>();
        for (Double rate : pg.rates()) {
            pg.modes().forEach(m -> arms.add(new Arm(m, rate)));
        }
        if (pg.capacity()) {
            pg.modes().forEach(m -> arms.add(new Arm(m, null)));
        }
        return arms;
    }

    static BenchReport run(BenchOptions o) {
        BenchOptions.PgCompare pg = o.pg();
        long rows = o.rowsOr(2_000_000);
        long pointRows = o.pointRows();
        Duration window = Duration.ofSeconds(Math.max(1, (long) Math.ceil(o.durationOr(Duration.ofSeconds(60)).toMillis() / 1000.0)));
        Duration warmUp = o.churnWarmup();
        boolean withTandem = pg.systems().contains(BenchOptions.TANDEM);
        boolean withPostgres = pg.systems().contains(BenchOptions.POSTGRESQL);
        Path bin = withPostgres ? PostgresServer.requireBinaries(pg.pgBin()) : PostgresServer.binaries(pg.pgBin()).orElse(null);
        Path pgbenchPath = PostgresServer.requirePgbench(bin);
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("point_rows", pointRows);
        settings.put("duration_s", window.toSeconds());
        settings.put("warmup_s", warmUp.toMillis() / 1000.0);
        ArrayNode rates = settings.putArray("rates");
        pg.rates().forEach(rates::add);
        settings.put("capacity_run", pg.capacity());
        settings.put("capacity_clients", o.connections());
        settings.put("open_loop_clients", OPEN_LOOP_CLIENTS);
        settings.put("pgbench_threads", Pgbench.THREADS);
        ArrayNode modes = settings.putArray("modes");
        pg.modes().forEach(modes::add);
        ArrayNode systems = settings.putArray("systems");
        pg.systems().forEach(systems::add);
        settings.put("script", Pgbench.script(pointRows));
        settings.put("churn", o.churnLoops() == 0 ? "none" : SqlChurn.describe(o.churnLoops()));
        settings.put("latency", "from each transaction's scheduled start (pgbench -R: schedule lag included), from pgbench's"
                + " per-transaction log (-l); transactions scheduled in the first warmup_s of a run are not counted");
        Path work;
        try {
            work = Files.createTempDirectory("tandem-bench-pgbench-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Pgbench pgbench = new Pgbench(pgbenchPath, work, pointRows);
            settings.put("pgbench", pgbench.executable().toString());
            settings.put("pgbench_version", pgbench.version());
            settings.put("pgbench_command", pgbench.template(OPEN_LOOP_CLIENTS));
            sweep(o, report, pgbench, bin, rows, pointRows, window, warmUp, withTandem, withPostgres);
        } finally {
            ChildServer.deleteTree(work);
        }
        return report;
    }

    /** Starts the systems, loads them, and runs every arm of the sweep on each; writes the tables and the ratios. */
    private static void sweep(BenchOptions o, BenchReport report, Pgbench pgbench, Path bin, long rows, long pointRows, Duration window,
            Duration warmUp, boolean withTandem, boolean withPostgres) {
        BenchOptions.PgCompare pg = o.pg();
        ObjectNode settings = report.settings();
        try (BenchArm tandem = withTandem ? BenchArm.start(BenchReport.TWO_RUNTIME, o, rows) : null;
                PostgresServer postgres = withPostgres ? startPostgres(bin, pg.pgSettings()) : null) {
            if (tandem != null) {
                ObjectNode json = report.arm(BenchOptions.TANDEM);
                json.put("load_seconds", LatencySummary.round(tandem.loadData(rows, pointRows)));
                tandem.recordAtRest(json, rows + pointRows);
            }
            if (postgres != null) {
                ObjectNode json = report.arm(BenchOptions.POSTGRESQL);
                settings.put("postgresql_version", postgres.version());
                ArrayNode s = settings.putArray("postgresql_settings");
                pg.pgSettings().forEach(s::add);
                json.put("load_seconds", LatencySummary.round(loadPostgres(postgres, rows, pointRows)));
            }
            List<String> table = new ArrayList<>();
            List<String> causes = new ArrayList<>();
            ArrayNode rowsJson = report.json().putArray("table");
            for (Arm arm : arms(pg)) {
                for (String system : pg.systems()) {
                    ObjectNode run = runs(report, system).putObject(arm.key());
                    if (system.equals(BenchOptions.TANDEM)) {
                        tandemRun(o, tandem, pgbench, arm, warmUp, window, run);
                    } else {
                        postgresRun(o, postgres, pgbench, arm, warmUp, window, run);
                    }
                    addRow(arm, system, run, o.connections(), table, causes, rowsJson);
                }
            }
            if (tandem != null) {
                // at rest again once the sweep and its churn are over: what the churn left behind
                tandem.recordAtRest(report.arm(BenchOptions.TANDEM).putObject("after_runs"), rows + pointRows);
            }
            ratios(report, pg);
            report.extra("| rate | mode | system | churn builds/min | p50 ms | p99 ms | p99.9 ms | max ms | achieved tx/s |");
            report.extra("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
            table.forEach(report::extra);
            report.extra("");
            report.extra("| rate | mode | system | transactions | never started | errors | server CPU s | GC pauses | pause max ms"
                    + " | alloc MB/s | reserve-held reads | churn builds | busiest server threads (CPU s) |");
            report.extra("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
            causes.forEach(report::extra);
        }
    }

    /** The {@code runs} object of {@code system}'s arm of the report. */
    private static ObjectNode runs(BenchReport report, String system) {
        ObjectNode arm = report.arm(system);
        return arm.has("runs") ? (ObjectNode) arm.get("runs") : arm.putObject("runs");
    }

    private static PostgresServer startPostgres(Path bin, List<String> settings) {
        BenchMain.log("[postgresql] initdb and start from %s with %s", bin, String.join(" ", settings));
        PostgresServer server = PostgresServer.start(bin, settings, Duration.ofMinutes(2));
        BenchMain.log("[postgresql] ready on 127.0.0.1:%d", server.port());
        return server;
    }

    /** Loads the same rows as {@link BenchArm#loadData} does into Tandem; returns the seconds taken. */
    private static double loadPostgres(PostgresServer postgres, long rows, long pointRows) {
        long start = System.nanoTime();
        postgres.execute("CREATE TABLE points (id bigint PRIMARY KEY, v bigint NOT NULL)",
                "CREATE TABLE big (id bigint NOT NULL, g bigint NOT NULL, v bigint NOT NULL)");
        postgres.copy("points", pointRows, i -> i + "\t" + BenchWorkload.value(i), Duration.ofMinutes(10));
        postgres.copy("big", rows, i -> i + "\t" + i % BenchWorkload.GROUPS + "\t" + BenchWorkload.value(i), Duration.ofMinutes(30));
        postgres.execute("VACUUM ANALYZE points", "VACUUM ANALYZE big");
        double seconds = (System.nanoTime() - start) / 1e9;
        BenchMain.log("[postgresql] loaded %d + %d rows (COPY, VACUUM ANALYZE) in %.1f s", rows, pointRows, seconds);
        return seconds;
    }

    private static void tandemRun(BenchOptions o, BenchArm a, Pgbench pgbench, Arm arm, Duration warmUp, Duration window, ObjectNode run) {
        String jdbc = "jdbc:postgresql://127.0.0.1:" + a.server.pgwirePort() + "/" + TANDEM_DATABASE + "?user=" + TANDEM_USER + "&sslmode=disable";
        BenchHttp http = new BenchHttp(a.server.port(), "churn", Math.max(2, o.churnLoops()));
        Pgbench.Target target = new Pgbench.Target(BenchOptions.TANDEM, a.server.pgwirePort(), TANDEM_USER, TANDEM_DATABASE);
        ChildResources.Window[] resources = new ChildResources.Window[1];
        measure(o, pgbench, arm, warmUp, window, run, target, new HydrationChurn(o.churnLoops(), SqlChurn.tandem(jdbc, http), http),
                () -> resources[0] = a.window(), () -> {
                    if (resources[0] != null) {
                        resources[0].finish(run);
                        LatencySummary.put(run, "server_cpu_seconds", IsolationScenario.value((ObjectNode) run.get("gc"), "cpu_seconds"));
                    }
                });
    }

    private static void postgresRun(BenchOptions o, PostgresServer postgres, Pgbench pgbench, Arm arm, Duration warmUp, Duration window, ObjectNode run) {
        Pgbench.Target target = new Pgbench.Target(BenchOptions.POSTGRESQL, postgres.port(), PostgresServer.USER, PostgresServer.DATABASE);
        Double[] cpu = new Double[1];
        measure(o, pgbench, arm, warmUp, window, run, target, new HydrationChurn(o.churnLoops(), SqlChurn.postgres(postgres.jdbcUrl()), () -> { }),
                () -> cpu[0] = postgres.cpuSeconds(), () -> {
                    Double end = postgres.cpuSeconds();
                    LatencySummary.put(run, "server_cpu_seconds", cpu[0] == null || end == null ? null : end - cpu[0]);
                });
    }

    /**
     * One system in one arm: starts the churn, runs pgbench through the warm-up and the window (the churn
     * counting its builds from the window's start, {@code opened} and {@code ended} around the window for the
     * system's own figures), stops the churn and writes the run.
     */
    private static void measure(BenchOptions o, Pgbench pgbench, Arm arm, Duration warmUp, Duration window, ObjectNode run, Pgbench.Target target,
            HydrationChurn churn, Runnable opened, Runnable ended) {
        String system = target.system();
        int clients = arm.rate() == null ? o.connections() : OPEN_LOOP_CLIENTS;
        run.put("mode", arm.mode());
        LatencySummary.put(run, "target_rate", arm.rate());
        run.put("clients", clients);
        BenchArm.loadAverage(run, "load_average_before");
        long[] windowNanos = new long[2];
        Pgbench.Result result;
        try (churn) {
            churn.awaitStarted();
            BenchMain.log("[%s] %s: churn under way (%d loops); pgbench -M %s %s for %s + %s s", system, arm.key(), o.churnLoops(), arm.mode(),
                    arm.rate() == null ? "-c " + clients : "-R " + BenchReport.fmt(arm.rate(), 0), warmUp.toSeconds(), window.toSeconds());
            result = pgbench.run(target, arm.mode(), arm.rate(), clients, warmUp, window, () -> {
                churn.openWindow(warmUp, run);
                windowNanos[0] = System.nanoTime();
                opened.run();
            }, () -> {
                windowNanos[1] = System.nanoTime();
                churn.writeTo(run);
                ended.run();
            });
        }
        result.writeTo(run);
        double seconds = (windowNanos[1] - windowNanos[0]) / 1e9;
        run.put("window_s", LatencySummary.round(seconds));
        LatencySummary.put(run, "churn_builds_per_min", seconds > 0 ? run.path("churn_indexes_hydrated").asLong() * 60 / seconds : null);
        BenchArm.loadAverage(run, "load_average_after");
        BenchMain.log("[%s] %s: %d transactions (%d never started), %.0f/s, p50 %s ms, p99 %s ms, p99.9 %s ms, max %s ms; %d churn builds%s", system, arm.key(),
                result.latency().count() - result.latency().incomplete(), result.latency().incomplete(), result.achievedRate(), BenchReport.ms(result.latency().p50Ms()), BenchReport.ms(result.latency().p99Ms()),
                BenchReport.ms(result.latency().p999Ms()), BenchReport.ms(result.latency().maxMs()), run.path("churn_indexes_hydrated").asLong(),
                result.exitCode() == 0 ? "" : "; pgbench exited with " + result.exitCode() + ":\n" + result.output());
    }

    private static void addRow(Arm arm, String system, ObjectNode run, int capacityClients, List<String> table, List<String> causes, ArrayNode rows) {
        String name = system.equals(BenchOptions.TANDEM) ? "Tandem" : "PostgreSQL";
        String rate = arm.rateLabel(capacityClients);
        table.add("| " + rate + " | " + arm.mode() + " | " + name + " | " + BenchReport.num(run.path("churn_builds_per_min"), 1) + " | "
                + ms(run, "p50_ms") + " | " + ms(run, "p99_ms") + " | " + ms(run, "p999_ms") + " | " + ms(run, "max_ms") + " | "
                + BenchReport.num(run.path("achieved_rate"), 0) + " |");
        JsonNode gc = run.path("gc");
        causes.add("| " + rate + " | " + arm.mode() + " | " + name + " | " + (run.path("count").asLong() - run.path("incomplete").asLong()) + " | "
                + run.path("incomplete").asLong() + " | " + run.path("errors").asLong() + " | "
                + BenchReport.num(run.path("server_cpu_seconds"), 1) + " | " + BenchReport.num(gc.path("pauses"), 0) + " | "
                + BenchReport.num(gc.path("pause_max_ms"), 2) + " | "
                + (gc.path("allocation_rate_bytes_per_s").isNumber() ? BenchReport.fmt(gc.path("allocation_rate_bytes_per_s").asDouble() / 1e6, 1) : "—")
                + " | " + BenchReport.num(run.path("reserve_held_peeks"), 0) + " | " + run.path("churn_indexes_hydrated").asLong() + " | "
                + (run.path("cpu_by_thread").isObject() ? ThreadCpu.top((ObjectNode) run.get("cpu_by_thread"), 4) : "—") + " |");
        ObjectNode row = rows.addObject();
        LatencySummary.put(row, "rate", arm.rate());
        row.put("mode", arm.mode());
        row.put("system", system);
        row.set("churn_builds_per_min", run.path("churn_builds_per_min"));
        for (String f : List.of("p50_ms", "p99_ms", "p999_ms", "max_ms")) {
            row.set(f, run.path(f));
        }
        row.set("achieved_per_s", run.path("achieved_rate"));
        row.put("transactions", run.path("count").asLong() - run.path("incomplete").asLong());
        row.set("never_started", run.path("incomplete"));
    }

    private static String ms(JsonNode run, String field) {
        return BenchReport.ms(run.path(field).isNumber() ? run.path(field).asDouble() : null);
    }

    /** Tandem over PostgreSQL in each arm: p50, p99 and p99.9, and for the capacity runs the throughput. */
    private static void ratios(BenchReport report, BenchOptions.PgCompare pg) {
        if (!pg.systems().contains(BenchOptions.TANDEM) || !pg.systems().contains(BenchOptions.POSTGRESQL)) {
            return;
        }
        JsonNode t = report.measured(BenchOptions.TANDEM).path("runs");
        JsonNode p = report.measured(BenchOptions.POSTGRESQL).path("runs");
        for (Arm arm : arms(pg)) {
            ObjectNode tr = (ObjectNode) t.path(arm.key());
            ObjectNode pr = (ObjectNode) p.path(arm.key());
            if (arm.rate() == null) {
                report.ratio("tandem_over_postgresql_rate_" + arm.key(), IsolationScenario.value(tr, "achieved_rate"),
                        IsolationScenario.value(pr, "achieved_rate"));
            }
            for (String q : List.of("p50", "p99", "p999")) {
                report.ratio("tandem_over_postgresql_" + q + "_" + arm.key(), IsolationScenario.value(tr, q + "_ms"),
                        IsolationScenario.value(pr, q + "_ms"));
            }
        }
    }
}
