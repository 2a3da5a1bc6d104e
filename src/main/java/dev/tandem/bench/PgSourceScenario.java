package dev.tandem.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code pg-source}: Tandem replicating a throw-away PostgreSQL ({@code wal_level=logical}) through
 * {@code CREATE SOURCE ... FROM POSTGRES}. It measures
 * <ul>
 * <li>the <b>snapshot</b>: rows per second from {@code CREATE SOURCE} until every row of the upstream
 * tables is copied and the source streams, beside PostgreSQL's own {@code COPY big TO STDOUT} rate read by a
 * client that discards it (the ceiling);
 * <li>the <b>replication lag</b>, per arm (each write rate of {@code --rates}, then {@code capacity}: the
 * upstream saturated), while pgbench's TPC-B-like load commits upstream and Tandem serves pgbench point
 * reads of the replicated {@code points} table at 1,000/s: every 10 ms the generator commits
 * {@code UPDATE probe SET seq = seq + 1} upstream and notes when the commit returned; a reader polls
 * {@code SELECT seq FROM probe WHERE id = 1} from Tandem (every 0.5 ms) and takes each new {@code seq}'s
 * lag as the time from its commit's return to the read that first saw it;
 * <li>that <b>nothing was lost or applied twice</b>: once the load stops, the sums of the TPC-B tables'
 * balances and the probe's {@code seq} read from Tandem equal PostgreSQL's (each transaction adds a delta to
 * them, so a lost or repeated one shows).
 * </ul>
 */
final class PgSourceScenario {

    /** Upstream rows of pgbench's TPC-B tables ({@code pgbench -i -s 1}: 100,000 accounts). */
    static final int SCALE = 1;
    /** pgbench's upstream clients. */
    static final int WRITERS = 4;
    /** Tandem's point reads during each arm, per second. */
    static final double READ_RATE = 1000;
    /** How often the probe commits upstream. */
    static final Duration PROBE_EVERY = Duration.ofMillis(10);
    /** The longest the generator waits for the copy, or for Tandem to catch up after an arm. */
    static final Duration CATCH_UP = Duration.ofMinutes(3);

    private PgSourceScenario() {
    }

    static BenchReport run(BenchOptions o) {
        BenchOptions.PgCompare pg = o.pg();
        long rows = o.rowsOr(1_000_000);
        long pointRows = o.pointRows();
        Duration window = Duration.ofSeconds(Math.max(1, (long) Math.ceil(o.durationOr(Duration.ofSeconds(30)).toMillis() / 1000.0)));
        Duration warmUp = o.churnWarmup();
        Path bin = PostgresServer.requireBinaries(pg.pgBin());
        Path pgbenchPath = PostgresServer.requirePgbench(bin);
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("point_rows", pointRows);
        settings.put("duration_s", window.toSeconds());
        settings.put("warmup_s", warmUp.toMillis() / 1000.0);
        settings.put("tpcb_scale", SCALE);
        settings.put("writers", WRITERS);
        settings.put("read_rate", READ_RATE);
        settings.put("probe_every_ms", PROBE_EVERY.toMillis());
        settings.put("lag", "from the return of an upstream commit of UPDATE probe to the first Tandem read (polled every 0.5 ms) that sees it");
        List<String> pgSettings = new ArrayList<>(pg.pgSettings());
        pgSettings.addAll(List.of("wal_level=logical", "max_wal_senders=10", "max_replication_slots=10"));
        Path work;
        try {
            work = Files.createTempDirectory("tandem-bench-pgsource-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (PostgresServer postgres = PostgresServer.start(bin, pgSettings, Duration.ofMinutes(2));
                BenchArm tandem = BenchArm.start(BenchReport.TWO_RUNTIME, o, rows + pointRows)) {
            settings.put("postgresql_version", postgres.version());
            tools.jackson.databind.node.ArrayNode settingsJson = settings.putArray("postgresql_settings");
            pgSettings.forEach(settingsJson::add);
            Pgbench pgbench = new Pgbench(pgbenchPath, work, pointRows);
            settings.put("pgbench_version", pgbench.version());
            loadUpstream(postgres, pgbenchPath, rows, pointRows);
            ObjectNode snapshot = report.arm(BenchOptions.TANDEM).putObject("snapshot");
            snapshot.put("postgresql_copy_to_rows_per_s", LatencySummary.round(copyToRate(postgres, rows)));
            String jdbc = "jdbc:postgresql://127.0.0.1:" + tandem.server.pgwirePort() + "/tandem?user=bench&sslmode=disable";
            long replicated = rows + pointRows + 1 + 100_000L * SCALE + 10 * SCALE + SCALE;
            snapshot(tandem, postgres, jdbc, replicated, snapshot);
            // the source keeps the replicated rows by key as well as the tables do: what that costs at rest
            tandem.recordAtRest(report.arm(BenchOptions.TANDEM), replicated);
            List<String> table = new ArrayList<>();
            List<Double> rates = new ArrayList<>(pg.rates());
            if (pg.capacity()) {
                rates.add(null);
            }
            for (Double rate : rates) {
                String key = rate == null ? "capacity" : BenchReport.fmt(rate, 0);
                ObjectNode arm = report.arm(BenchOptions.TANDEM);
                ObjectNode run = (arm.has("runs") ? (ObjectNode) arm.get("runs") : arm.putObject("runs")).putObject(key);
                arm(postgres, pgbenchPath, pgbench, tandem, jdbc, rate, warmUp, window, run);
                table.add("| " + (rate == null ? "upstream saturated" : key + " tx/s") + " | " + BenchReport.num(run.path("upstream_tps"), 0) + " | "
                        + run.path("lag").path("count").asLong() + " | " + ms(run.path("lag"), "p50_ms") + " | " + ms(run.path("lag"), "p99_ms") + " | "
                        + ms(run.path("lag"), "max_ms") + " | " + ms(run.path("stages"), "receive_p99_ms") + " | " + ms(run.path("stages"), "write_p99_ms")
                        + " | " + ms(run.path("reads"), "p99_ms") + " | " + (run.path("equal").asBoolean() ? "yes" : "**no**") + " |");
            }
            report.extra("snapshot: " + BenchReport.num(snapshot.path("rows_per_s"), 0) + " rows/s (" + snapshot.path("rows").asLong() + " rows in "
                    + BenchReport.num(snapshot.path("seconds"), 1) + " s); PostgreSQL's own COPY TO: "
                    + BenchReport.num(snapshot.path("postgresql_copy_to_rows_per_s"), 0) + " rows/s");
            report.extra("");
            report.extra("| upstream load | upstream tx/s | lag samples | lag p50 ms | lag p99 ms | lag max ms | of which commit to arrival p99 ms"
                    + " | arrival to durable p99 ms | Tandem read p99 ms | nothing lost or twice |");
            report.extra("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
            table.forEach(report::extra);
        } finally {
            ChildServer.deleteTree(work);
        }
        return report;
    }

    /** Creates the upstream tables, loads them and publishes them. */
    private static void loadUpstream(PostgresServer postgres, Path pgbench, long rows, long pointRows) {
        long start = System.nanoTime();
        postgres.execute("CREATE TABLE points (id bigint PRIMARY KEY, v bigint NOT NULL)",
                "CREATE TABLE big (id bigint PRIMARY KEY, g bigint NOT NULL, v bigint NOT NULL)",
                "CREATE TABLE probe (id bigint PRIMARY KEY, seq bigint NOT NULL)", "INSERT INTO probe VALUES (1, 0)");
        postgres.copy("points", pointRows, i -> i + "\t" + BenchWorkload.value(i), Duration.ofMinutes(10));
        postgres.copy("big", rows, i -> i + "\t" + i % BenchWorkload.GROUPS + "\t" + BenchWorkload.value(i), Duration.ofMinutes(30));
        process(List.of(pgbench.toString(), "-h", "127.0.0.1", "-p", Integer.toString(postgres.port()), "-U", PostgresServer.USER, "-i", "-q",
                "-s", Integer.toString(SCALE), PostgresServer.DATABASE), Duration.ofMinutes(10));
        postgres.execute("CREATE PUBLICATION pub FOR TABLE points, big, probe, pgbench_accounts, pgbench_branches, pgbench_tellers",
                "VACUUM ANALYZE");
        BenchMain.log("[postgresql] loaded %d + %d rows and pgbench -i -s %d, published, in %.1f s", rows, pointRows, SCALE,
                (System.nanoTime() - start) / 1e9);
    }

    /** PostgreSQL's own rate of {@code COPY big TO STDOUT}, read by a client that discards it: rows/s. */
    private static double copyToRate(PostgresServer postgres, long rows) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl())) {
            long start = System.nanoTime();
            long copied = c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY big TO STDOUT", OutputStream.nullOutputStream());
            double seconds = (System.nanoTime() - start) / 1e9;
            BenchMain.log("[postgresql] COPY big TO STDOUT: %d rows in %.2f s", copied, seconds);
            return rows / seconds;
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("COPY big TO STDOUT failed: " + e.getMessage(), e);
        }
    }

    /** Creates the source and times its copy of every upstream row, until it streams. */
    private static void snapshot(BenchArm tandem, PostgresServer postgres, String jdbc, long expectedRows, ObjectNode out) {
        long start = System.nanoTime();
        try (Connection c = DriverManager.getConnection(jdbc); Statement s = c.createStatement()) {
            s.execute("CREATE SOURCE up FROM POSTGRES CONNECTION 'host=127.0.0.1 port=" + postgres.port() + " dbname=" + PostgresServer.DATABASE
                    + " user=" + PostgresServer.USER + "' PUBLICATION 'pub'");
        } catch (SQLException e) {
            throw new IllegalStateException("CREATE SOURCE failed: " + e.getMessage(), e);
        }
        JsonNode status = null;
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (System.nanoTime() < deadline) {
            status = tandem.admin.getJson("/v1/sources/up");
            if (status.path("state").asString("").equals("streaming") && status.path("rows_copied").asLong() >= expectedRows) {
                break;
            }
            if (status.path("state").asString("").equals("failed")) {
                throw new IllegalStateException("the source failed during its copy: " + status);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long copied = status == null ? 0 : status.path("rows_copied").asLong();
        if (copied < expectedRows) {
            throw new IllegalStateException("the copy did not finish within " + CATCH_UP + ": " + status);
        }
        out.put("rows", copied);
        out.put("seconds", LatencySummary.round(seconds));
        out.put("rows_per_s", LatencySummary.round(copied / seconds));
        BenchMain.log("[tandem] copied %d rows in %.1f s: %.0f rows/s", copied, seconds, copied / seconds);
    }

    /**
     * One arm: pgbench's TPC-B-like load upstream ({@code rate} tx/s, or as fast as it goes when null), the
     * probe and its reader, and pgbench's point reads against Tandem, for the warm-up and the window; then
     * the check that Tandem caught up to exactly PostgreSQL's balances.
     */
    private static void arm(PostgresServer postgres, Path pgbenchPath, Pgbench pgbench, BenchArm tandem, String jdbc, Double rate,
            Duration warmUp, Duration window, ObjectNode run) {
        BenchArm.loadAverage(run, "load_average_before");
        long seconds = warmUp.toSeconds() + window.toSeconds();
        List<String> writeCmd = new ArrayList<>(List.of(pgbenchPath.toString(), "-h", "127.0.0.1", "-p", Integer.toString(postgres.port()), "-U",
                PostgresServer.USER, "-n", "-b", "tpcb-like", "-c", Integer.toString(WRITERS), "-j", "2"));
        if (rate != null) {
            writeCmd.addAll(List.of("-R", BenchReport.fmt(rate, 0)));
        }
        writeCmd.addAll(List.of("-T", Long.toString(seconds), PostgresServer.DATABASE));
        run.put("upstream_command", String.join(" ", writeCmd));
        Process writer;
        try {
            writer = new ProcessBuilder(writeCmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        LatencyRecorder lag = new LatencyRecorder();
        ConcurrentHashMap<Long, Long> committed = new ConcurrentHashMap<>();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        long origin = System.nanoTime();
        Thread probe = Thread.ofPlatform().name("pg-source-probe").start(() -> probe(postgres, committed, stop, failed));
        Thread reader = Thread.ofPlatform().name("pg-source-reader").start(() -> read(jdbc, committed, lag, measuring, origin, stop, failed));
        Pgbench.Result reads;
        long[] windowNanos = new long[2];
        ChildResources.Window[] resources = new ChildResources.Window[1];
        try {
            reads = pgbench.run(new Pgbench.Target(BenchOptions.TANDEM, tandem.server.pgwirePort(), "bench", "tandem"), "prepared", READ_RATE,
                    PgCompareScenario.OPEN_LOOP_CLIENTS, warmUp, window, () -> {
                        windowNanos[0] = System.nanoTime();
                        resources[0] = tandem.window();
                        measuring.set(true);
                    }, () -> {
                        measuring.set(false);
                        windowNanos[1] = System.nanoTime();
                        stages(tandem.admin.getText("/actuator/prometheus"), run.putObject("stages"));
                        if (resources[0] != null) {
                            resources[0].finish(run);
                        }
                    });
        } finally {
            stop.set(true);
            join(probe);
            join(reader);
        }
        String writerOut;
        try {
            if (!writer.waitFor(seconds + 60, TimeUnit.SECONDS)) {
                writer.destroyForcibly();
            }
            writerOut = new String(writer.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (InterruptedException | IOException e) {
            writer.destroyForcibly();
            throw new IllegalStateException("the upstream pgbench did not end: " + e, e);
        }
        if (failed.get() != null) {
            throw new IllegalStateException("the probe failed: " + failed.get(), failed.get());
        }
        java.util.regex.Matcher tps = java.util.regex.Pattern.compile("tps = ([0-9.]+)").matcher(writerOut);
        LatencySummary.put(run, "upstream_tps", tps.find() ? Double.parseDouble(tps.group(1)) : null);
        double windowSeconds = (windowNanos[1] - windowNanos[0]) / 1e9;
        lag.summary(windowSeconds).writeTo(run.putObject("lag"));
        ObjectNode readJson = run.putObject("reads");
        reads.writeTo(readJson);
        run.put("equal", caughtUp(postgres, jdbc, run));
        BenchArm.loadAverage(run, "load_average_after");
        JsonNode l = run.get("lag");
        BenchMain.log("[tandem] upstream %s: %s tx/s; lag p50 %s ms, p99 %s ms, max %s ms over %d commits; reads p99 %s ms; equal after: %s",
                rate == null ? "saturated" : BenchReport.fmt(rate, 0) + " tx/s", run.path("upstream_tps"), ms(l, "p50_ms"), ms(l, "p99_ms"), ms(l, "max_ms"),
                l.path("count").asLong(), ms(readJson, "p99_ms"), run.path("equal").asBoolean());
        JsonNode st = run.path("stages");
        BenchMain.log("[tandem] of which: upstream commit to arrival p50 %s ms, p99 %s ms; arrival to durable p50 %s ms, p99 %s ms",
                ms(st, "receive_p50_ms"), ms(st, "receive_p99_ms"), ms(st, "write_p50_ms"), ms(st, "write_p99_ms"));
    }

    /**
     * The source's stage timers at the end of the window ({@code tandem_source_receive_seconds} and
     * {@code tandem_source_write_seconds}: Micrometer's percentiles over its last minutes) in milliseconds.
     */
    static void stages(String prometheus, ObjectNode out) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^tandem_source_(receive|write)_seconds\\{([^}]*)} (\\S+)$").matcher(prometheus);
        while (m.find()) {
            String labels = m.group(2);
            String quantile = labels.contains("quantile=\"0.5\"") ? "_p50_ms" : labels.contains("quantile=\"0.99\"") ? "_p99_ms" : null;
            if (quantile != null && labels.contains("source=\"up\"")) {
                LatencySummary.put(out, m.group(1) + quantile, LatencySummary.round(Double.parseDouble(m.group(3)) * 1000));
            }
        }
    }

    /** Commits {@code UPDATE probe SET seq = seq + 1} every {@link #PROBE_EVERY} and notes when each commit returned. */
    private static void probe(PostgresServer postgres, ConcurrentHashMap<Long, Long> committed, AtomicBoolean stop, AtomicReference<Throwable> failed) {
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl());
                PreparedStatement up = c.prepareStatement("UPDATE probe SET seq = seq + 1 WHERE id = 1 RETURNING seq")) {
            long next = System.nanoTime();
            while (!stop.get()) {
                try (ResultSet r = up.executeQuery()) {
                    r.next();
                    committed.put(r.getLong(1), System.nanoTime());
                }
                next += PROBE_EVERY.toNanos();
                LockSupport.parkNanos(next - System.nanoTime());
            }
        } catch (SQLException | RuntimeException e) {
            failed.compareAndSet(null, e);
        }
    }

    /** Polls the probe's row from Tandem and records each new {@code seq}'s lag while {@code measuring}. */
    private static void read(String jdbc, ConcurrentHashMap<Long, Long> committed, LatencyRecorder lag, AtomicBoolean measuring, long origin,
            AtomicBoolean stop, AtomicReference<Throwable> failed) {
        try (Connection c = DriverManager.getConnection(jdbc); PreparedStatement q = c.prepareStatement("SELECT seq FROM probe WHERE id = 1")) {
            long seen = -1;
            while (!stop.get()) {
                long seq;
                try (ResultSet r = q.executeQuery()) {
                    seq = r.next() ? r.getLong(1) : -1;
                }
                long now = System.nanoTime();
                if (seen >= 0 && seq > seen && measuring.get()) {
                    for (long k = seen + 1; k <= seq; k++) {
                        Long at = committed.remove(k);
                        // seen before its commit returned to the prober: a lag of zero, not a negative one
                        lag.record((now - origin) / 1e9, at == null ? 0 : Math.max(0, now - at));
                    }
                }
                seen = Math.max(seen, seq);
                LockSupport.parkNanos(500_000);
            }
        } catch (SQLException | RuntimeException e) {
            failed.compareAndSet(null, e);
        }
    }

    /** Waits until Tandem's balances and probe equal PostgreSQL's ({@link #CATCH_UP} at most); whether they did. */
    private static boolean caughtUp(PostgresServer postgres, String jdbc, ObjectNode run) {
        String upstream = balances(postgres.jdbcUrl());
        long start = System.nanoTime();
        String here = null;
        while (System.nanoTime() - start < CATCH_UP.toNanos()) {
            here = balances(jdbc);
            if (upstream.equals(here)) {
                run.put("catch_up_s", LatencySummary.round((System.nanoTime() - start) / 1e9));
                run.put("balances", upstream);
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
        run.put("balances_upstream", upstream);
        run.put("balances_tandem", here);
        return false;
    }

    /** The TPC-B tables' balance sums, the accounts' count and the probe's {@code seq}, as one line. */
    private static String balances(String jdbc) {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(jdbc); Statement s = c.createStatement()) {
            for (String sql : List.of("SELECT sum(abalance) FROM pgbench_accounts", "SELECT sum(bbalance) FROM pgbench_branches",
                    "SELECT sum(tbalance) FROM pgbench_tellers", "SELECT count(*) FROM pgbench_accounts", "SELECT seq FROM probe WHERE id = 1")) {
                try (ResultSet r = s.executeQuery(sql)) {
                    values.add(r.next() ? String.valueOf(r.getObject(1)) : "none");
                }
            }
            return String.join(",", values);
        } catch (SQLException e) {
            return "error: " + e.getMessage();
        }
    }

    private static void process(List<String> cmd, Duration timeout) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void join(Thread t) {
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String ms(JsonNode run, String field) {
        return BenchReport.ms(run.path(field).isNumber() ? run.path(field).asDouble() : null);
    }
}
