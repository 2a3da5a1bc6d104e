package dev.tandem.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code sql-point-lookup}: closed-loop point lookups through the PostgreSQL wire protocol (JDBC
 * prepared statements, {@code SELECT * FROM points WHERE id = ?}, a fast-path lookup of the point
 * index) next to the same lookups over REST ({@code GET /v1/indexes/points_by_id/rows?key=K}),
 * measured in one run against the same child server, in both arms (two-runtime and SOLO).
 *
 * <p>Then both loops run again while hydration churn keeps maintenance
 * busy ({@link #underChurn}), for the read-isolation property of SQL reads.
 *
 * <p>JDBC is blocking: each of the {@code connections} loops holds its own connection and prepared
 * statement and runs on a bounded-elastic thread, so the SQL figures include a thread hand-off the
 * REST client does not pay.
 */
final class SqlPointLookupScenario {

    private SqlPointLookupScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long rows = o.rowsOr(100_000);
        Duration duration = o.durationOr(Duration.ofSeconds(20));
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("point_rows", rows);
        settings.put("duration_s", duration.toMillis() / 1000.0);
        settings.put("connections", o.connections());
        settings.put("sql", "SELECT * FROM " + "points WHERE id = ? (JDBC prepared statement over the wire protocol)");
        settings.put("rest", "GET /v1/indexes/" + BenchWorkload.POINT_INDEX + "/rows?key=K&isolation=serializable");
        Scheduler jdbcThreads = Schedulers.newBoundedElastic(Math.max(1, o.connections()), 100_000, "bench-jdbc");
        try {
            for (String arm : o.arms()) {
                ObjectNode json = report.arm(arm);
                try (BenchArm a = BenchArm.start(arm, o, rows + churnRows(rows)); JdbcPool pool = new JdbcPool(a.server.pgwirePort(), o.connections())) {
                    json.put("load_seconds", LatencySummary.round(a.loadData(0, rows)));
                    a.recordAtRest(json, rows);
                    Supplier<Mono<Integer>> rest = BenchWorkload.pointLookup(a.closed, rows);
                    Supplier<Mono<Integer>> sql = () -> Mono.fromCallable(() -> pool.lookup(ThreadLocalRandom.current().nextLong(rows)))
                            .subscribeOn(jdbcThreads);
                    LoadGenerator.closedLoop(rest, o.connections(), o.probe());
                    LoadGenerator.closedLoop(sql, o.connections(), o.probe());
                    BenchArm.loadAverage(json, "load_average_before");
                    ChildResources.Window window = a.window();
                    LatencySummary restReads = LoadGenerator.closedLoop(rest, o.connections(), duration);
                    LatencySummary sqlReads = LoadGenerator.closedLoop(sql, o.connections(), duration);
                    window.finish(json);
                    BenchArm.loadAverage(json, "load_average_after");
                    sqlReads.writeTo(json);
                    restReads.writeTo(json.putObject("rest"));
                    report.row(arm + " SQL (JDBC)", sqlReads);
                    report.row(arm + " REST", restReads);
                    BenchMain.log("[%s] SQL p50 %.3f ms, REST p50 %.3f ms", arm, IsolationScenario.value(json, "p50_ms"),
                            IsolationScenario.value((ObjectNode) json.get("rest"), "p50_ms"));
                    if (o.churnLoops() > 0) {
                        underChurn(o, a, json, arm, rest, sql, duration, report);
                    }
                }
            }
        } finally {
            jdbcThreads.dispose();
        }
        ObjectNode two = report.measured(BenchReport.TWO_RUNTIME);
        ObjectNode solo = report.measured(BenchReport.SOLO);
        report.ratio("two_runtime_sql_over_rest_p50", IsolationScenario.value(two, "p50_ms"),
                IsolationScenario.value((ObjectNode) two.get("rest"), "p50_ms"));
        report.ratio("solo_sql_over_rest_p50", IsolationScenario.value(solo, "p50_ms"),
                IsolationScenario.value((ObjectNode) solo.get("rest"), "p50_ms"));
        report.ratio("solo_over_two_runtime_p50", IsolationScenario.value(solo, "p50_ms"), IsolationScenario.value(two, "p50_ms"));
        report.ratio("solo_over_two_runtime_p99", IsolationScenario.value(solo, "p99_ms"), IsolationScenario.value(two, "p99_ms"));
        if (two.get("churn") != null && solo.get("churn") != null) {
            ObjectNode twoChurn = (ObjectNode) two.get("churn");
            ObjectNode soloChurn = (ObjectNode) solo.get("churn");
            report.ratio("under_churn_sql_solo_over_two_runtime_p50", IsolationScenario.value(soloChurn, "p50_ms"),
                    IsolationScenario.value(twoChurn, "p50_ms"));
            report.ratio("under_churn_sql_solo_over_two_runtime_p99", IsolationScenario.value(soloChurn, "p99_ms"),
                    IsolationScenario.value(twoChurn, "p99_ms"));
        }
        return report;
    }

    /** Rows of {@code big} loaded for the hydration churn of the second phase: ten times the point rows (1 M by default). */
    static long churnRows(long pointRows) {
        return 10 * pointRows;
    }

    /**
     * The second phase: the same closed loops while {@link HydrationChurn} keeps maintenance saturated
     * (over {@link #churnRows} rows of {@code big}), so the read-isolation property can be read for
     * SQL reads too: each arm's {@code churn} object holds the SQL figures, {@code churn.rest} REST's.
     */
    private static void underChurn(BenchOptions o, BenchArm a, ObjectNode json, String arm, Supplier<Mono<Integer>> rest,
            Supplier<Mono<Integer>> sql, Duration duration, BenchReport report) {
        BenchWorkload.createBigTable(a.admin);
        BenchWorkload.loadBig(a.admin, churnRows(o.rowsOr(100_000)));
        BenchWorkload.createChurnViews(a.admin);
        ObjectNode churned = json.putObject("churn");
        try (HydrationChurn churn = new HydrationChurn(a.server.port(), o.churnLoops())) {
            churn.awaitStarted();
            BenchMain.log("[%s] churn under way; closed loops of SQL then REST for %s each", arm, duration);
            LatencySummary sqlReads = LoadGenerator.closedLoop(sql, o.connections(), duration);
            LatencySummary restReads = LoadGenerator.closedLoop(rest, o.connections(), duration);
            sqlReads.writeTo(churned);
            restReads.writeTo(churned.putObject("rest"));
            churn.writeTo(churned);
            report.row(arm + " SQL (JDBC), under churn", sqlReads);
            report.row(arm + " REST, under churn", restReads);
        }
    }

    /** JDBC connections, each with the lookup prepared; a lookup takes one, runs, and gives it back. */
    private static final class JdbcPool implements AutoCloseable {
        private final List<Connection> connections = new ArrayList<>();
        private final BlockingQueue<PreparedStatement> idle;

        JdbcPool(int port, int size) {
            idle = new ArrayBlockingQueue<>(Math.max(1, size));
            try {
                for (int i = 0; i < Math.max(1, size); i++) {
                    Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tandem?user=bench&sslmode=disable");
                    connections.add(c);
                    idle.add(c.prepareStatement("SELECT * FROM points WHERE id = ?"));
                }
            } catch (SQLException e) {
                close();
                throw new IllegalStateException("cannot connect to the wire protocol on port " + port + ": " + e.getMessage(), e);
            }
        }

        /** 200 when the lookup answered (with or without a row), as the REST loop counts statuses. */
        int lookup(long id) throws SQLException, InterruptedException {
            PreparedStatement ps = idle.take();
            try {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rs.getLong(1);
                    }
                }
                return 200;
            } finally {
                idle.add(ps);
            }
        }

        @Override
        public void close() {
            for (Connection c : connections) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // closing a benchmark connection that already failed
                }
            }
        }
    }
}
