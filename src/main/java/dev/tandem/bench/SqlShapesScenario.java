package dev.tandem.bench;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import org.postgresql.PGConnection;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code sql-shapes}: hard SQL shapes as indexed views on one Tandem child server, beside the same queries
 * run once on a throw-away {@link PostgresServer} holding the same rows. Per shape (an arm): the
 * <b>hydration</b> time ({@code CREATE VIEW} + {@code CREATE INDEX} until the index is hydrated); the
 * <b>cost of one change</b>: single-row writes, an insert and then the delete of the same row, each timed
 * from the write's acknowledgement until a second connection's point read of the view by the index key
 * sees it (polled every 0.5 ms), and the view's dataflow's operator time and steps per change (from
 * {@code tandem_internal.operator_elapsed}); PostgreSQL's best of three one-shot runs of the query; and
 * whether the view equals PostgreSQL's query afterwards; the child's GC and CPU over the changes, as every
 * scenario's window records them. A shape Tandem refuses ({@code 0A000}) records the
 * refusal instead of figures.
 */
final class SqlShapesScenario {

    static final List<String> SHAPES = List.of("correlated", "row_number", "closure", "temporal");

    /** Changes per shape at most (pairs: an insert, then the delete of the same row). */
    static final int MAX_CHANGES = 200;
    /** The pause between one change becoming visible and the next write. */
    static final Duration SPACING = Duration.ofMillis(20);
    /** The longest a change may take to become visible before the shape's changes stop. */
    static final Duration VISIBLE_WITHIN = Duration.ofSeconds(30);
    static final Duration HYDRATED_WITHIN = Duration.ofMinutes(30);
    /** The writes per second into the temporal shape's table while its changes are timed. */
    static final int TEMPORAL_WRITES_PER_S = 1000;
    /** Rows per {@code COPY} into Tandem, well under its 64 MB bound. */
    private static final int COPY_ROWS = 100_000;
    private static final int PG_RUNS = 3;

    private SqlShapesScenario() {
    }

    static BenchReport run(BenchOptions o) {
        long rows = o.rowsOr(1_000_000);
        Duration window = o.durationOr(Duration.ofSeconds(60));
        Path bin = PostgresServer.requireBinaries(o.pg().pgBin());
        BenchReport report = new BenchReport(o.scenario());
        ObjectNode settings = report.settings();
        settings.put("rows", rows);
        settings.put("changes_max", MAX_CHANGES);
        settings.put("changes_window_s", window.toMillis() / 1000.0);
        settings.put("change_spacing_ms", SPACING.toMillis());
        settings.put("temporal_writes_per_s", TEMPORAL_WRITES_PER_S);
        o.shapes().forEach(settings.putArray("shapes")::add);
        settings.put("change_latency", "from the return of the write (autocommit, durable) to the first point read of the view by its index key,"
                + " on another connection polling every 0.5 ms, that sees it; p99 is the nearest rank of the changes made");
        settings.put("operator_work", "the view's index dataflow's operator step time (elapsed_ns) and steps (invocations), summed over"
                + " operators and workers, from tandem_internal.operator_elapsed before and after the changes, per change (the temporal"
                + " shape's background writes included)");
        settings.put("postgresql_one_shot", "best of " + PG_RUNS + " runs of SELECT count(*) FROM (<query>) q through JDBC, after VACUUM ANALYZE");
        List<String> table = new ArrayList<>();
        try (PostgresServer postgres = PostgresServer.start(bin, o.pg().pgSettings(), Duration.ofMinutes(2));
                BenchArm tandem = BenchArm.start(BenchReport.TWO_RUNTIME, o, rows)) {
            settings.put("postgresql_version", postgres.version());
            o.pg().pgSettings().forEach(settings.putArray("postgresql_settings")::add);
            String jdbc = "jdbc:postgresql://127.0.0.1:" + tandem.server.pgwirePort() + "/tandem?user=bench&sslmode=disable";
            for (String name : o.shapes()) {
                SqlShape shape = SqlShape.of(name, rows, Instant.now());
                ObjectNode arm = report.arm(name);
                arm.put("query", shape.query());
                arm.put("data", shape.data());
                measure(shape, tandem, jdbc, postgres, window, arm);
                table.add(row(name, arm));
            }
        }
        report.extra("| shape | Tandem hydration s | rows in the answer | changes | change p50 ms | change p99 ms | change max ms"
                + " | operator ms per change | operator steps per change | PostgreSQL one-shot ms | equal to PostgreSQL |");
        report.extra("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
        table.forEach(report::extra);
        return report;
    }

    /** Loads the shape into both systems, times PostgreSQL's query, then Tandem's view, its changes and its answer; drops it from both. */
    private static void measure(SqlShape shape, BenchArm tandem, String jdbc, PostgresServer postgres, Duration window, ObjectNode arm) {
        String view = "shape_" + shape.name();
        String index = view + "_idx";
        try (Connection c = DriverManager.getConnection(jdbc); Statement s = c.createStatement()) {
            arm.put("tandem_load_s", LatencySummary.round(load(shape, c, s)));
            arm.put("postgresql_load_s", LatencySummary.round(load(shape, postgres)));
            onPostgres(shape, postgres, arm);
            long start = System.nanoTime();
            try {
                s.execute("CREATE VIEW " + view + " AS " + shape.query());
                s.execute("CREATE INDEX " + index + " ON " + view + " (" + shape.key() + ")");
            } catch (SQLException e) {
                arm.put("0A000".equals(e.getSQLState()) ? "refused" : "failed", e.getSQLState() + ": " + e.getMessage());
                BenchMain.log("[%s] Tandem: %s", shape.name(), e.getMessage());
                drop(shape, s, view, index);
                return;
            }
            String[] failure = new String[1];
            double waited = BenchWorkload.awaitHydrated(tandem.admin, index, HYDRATED_WITHIN, () -> failed(tandem, index, failure));
            if (waited < 0) {
                arm.put("failed", "the index failed while hydrating: " + failure[0]);
                drop(shape, s, view, index);
                return;
            }
            arm.put("hydration_s", LatencySummary.round((System.nanoTime() - start) / 1e9));
            JsonNode status = tandem.admin.getJson("/v1/indexes/" + index);
            arm.put("index_records", status.path("records").asLong());
            BenchMain.log("[%s] Tandem: hydrated in %.1f s (%d records)", shape.name(), arm.path("hydration_s").asDouble(), status.path("records").asLong());
            ChildResources.Window resources = tandem.window();
            changes(shape, jdbc, view, status.path("id").asString(""), postgres, window, arm);
            resources.finish(arm);
            compare(shape, c, view, index, postgres, arm);
            drop(shape, s, view, index);
        } catch (SQLException e) {
            throw new IllegalStateException("shape " + shape.name() + ": " + e.getMessage(), e);
        } finally {
            postgres.execute(shape.tables().stream().map(t -> "DROP TABLE IF EXISTS " + t.name()).toArray(String[]::new));
        }
    }

    /** Whether the index has failed, its error then in {@code failure[0]}. */
    private static boolean failed(BenchArm tandem, String index, String[] failure) {
        JsonNode status = tandem.admin.getJson("/v1/indexes/" + index);
        if ("failed".equals(status.path("state").asString(""))) {
            failure[0] = status.path("error").asString("");
            return true;
        }
        return false;
    }

    /** Creates the shape's tables in Tandem and copies their rows in over the wire protocol; the seconds taken. */
    private static double load(SqlShape shape, Connection c, Statement s) throws SQLException {
        long start = System.nanoTime();
        for (SqlShape.Table t : shape.tables()) {
            s.execute(t.ddl());
            for (long from = 0; from < t.rows(); from += COPY_ROWS) {
                StringBuilder b = new StringBuilder();
                for (long i = from; i < Math.min(t.rows(), from + COPY_ROWS); i++) {
                    b.append(t.line().apply(i)).append('\n');
                }
                try {
                    c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY " + t.name() + " FROM STDIN", new StringReader(b.toString()));
                } catch (IOException e) {
                    throw new IllegalStateException("COPY into " + t.name() + " failed: " + e.getMessage(), e);
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        BenchMain.log("[%s] Tandem: loaded %s in %.1f s", shape.name(), shape.data(), seconds);
        return seconds;
    }

    /** Creates the shape's tables and PostgreSQL's indexes for its query, copies the rows in and analyzes them; the seconds taken. */
    private static double load(SqlShape shape, PostgresServer postgres) {
        long start = System.nanoTime();
        for (SqlShape.Table t : shape.tables()) {
            postgres.execute(t.ddl());
            postgres.copy(t.name(), t.rows(), t.line(), Duration.ofMinutes(30));
            postgres.execute("VACUUM ANALYZE " + t.name());
        }
        postgres.execute(shape.postgresIndexes().toArray(String[]::new));
        return (System.nanoTime() - start) / 1e9;
    }

    /** PostgreSQL's best of {@link #PG_RUNS} one-shot runs of the query, and its row count. */
    private static void onPostgres(SqlShape shape, PostgresServer postgres, ObjectNode arm) throws SQLException {
        double best = Double.MAX_VALUE;
        long count = -1;
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl()); Statement s = c.createStatement()) {
            for (int run = 0; run < PG_RUNS; run++) {
                long start = System.nanoTime();
                try (ResultSet r = s.executeQuery("SELECT count(*) FROM (" + shape.query() + ") q")) {
                    r.next();
                    count = r.getLong(1);
                }
                best = Math.min(best, (System.nanoTime() - start) / 1e9);
            }
        }
        arm.put("postgresql_one_shot_ms", LatencySummary.round(best * 1000));
        arm.put("postgresql_rows", count);
        BenchMain.log("[%s] PostgreSQL: %d rows, best of %d in %.3f s", shape.name(), count, PG_RUNS, best);
    }

    /**
     * Makes the shape's changes (pairs of an insert and a delete, at most {@link #MAX_CHANGES}, no new pair after
     * {@code window}), each timed until visible; with the temporal shape's writes in the background.
     */
    private static void changes(SqlShape shape, String jdbc, String view, String dataflow, PostgresServer postgres, Duration window, ObjectNode arm)
            throws SQLException {
        List<Long> latencies = new ArrayList<>();
        long incomplete = 0;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> writerFailed = new AtomicReference<>();
        AtomicLong written = new AtomicLong();
        long[] before = operatorWork(jdbc, dataflow);
        Thread writer = shape.background() == null ? null : Thread.ofPlatform().name("sql-shapes-writer").start(
                () -> background(shape, jdbc, postgres, stop, written, writerFailed));
        try (Connection w = DriverManager.getConnection(jdbc); Connection r = DriverManager.getConnection(jdbc);
                Statement ws = w.createStatement(); Statement rs = r.createStatement()) {
            long deadline = System.nanoTime() + window.toNanos();
            long k = 0;
            for (; k < MAX_CHANGES && (k % 2 == 1 || System.nanoTime() < deadline); k++) {
                SqlShape.Change change = shape.change().apply(k);
                ws.executeUpdate(change.write().replace("$view", view));
                long acked = System.nanoTime();
                long seen = visible(rs, change.probe().replace("$view", view), change.visibleRows(), acked + VISIBLE_WITHIN.toNanos());
                if (seen < 0) {
                    incomplete++;
                    if (k % 2 == 0) {
                        // the pair's delete, so that the tables end as they began
                        ws.executeUpdate(shape.change().apply(k + 1).write());
                    }
                    k++;
                    break;
                }
                latencies.add(seen - acked);
                LockSupport.parkNanos(SPACING.toNanos());
            }
            stop.set(true);
            join(writer);
            long[] after = operatorWork(jdbc, dataflow);
            long n = latencies.size();
            ObjectNode json = arm.putObject("changes");
            json.put("count", n);
            json.put("incomplete", incomplete);
            LatencySummary.put(json, "p50_ms", quantileMs(latencies, 0.50));
            LatencySummary.put(json, "p99_ms", quantileMs(latencies, 0.99));
            LatencySummary.put(json, "max_ms", quantileMs(latencies, 1.0));
            if (writer != null) {
                json.put("background_writes", written.get());
            }
            ObjectNode work = arm.putObject("operator_work");
            work.put("dataflow", dataflow);
            if (before != null && after != null && k > 0) {
                LatencySummary.put(work, "ms_per_change", LatencySummary.round((after[0] - before[0]) / 1e6 / k));
                LatencySummary.put(work, "steps_per_change", LatencySummary.round((after[1] - before[1]) / (double) k));
            }
            BenchMain.log("[%s] Tandem: %d changes (%d not visible within %s), p50 %s ms, p99 %s ms, max %s ms; operator %s ms and %s steps per change",
                    shape.name(), n, incomplete, VISIBLE_WITHIN, json.path("p50_ms"), json.path("p99_ms"), json.path("max_ms"),
                    work.path("ms_per_change"), work.path("steps_per_change"));
        } finally {
            stop.set(true);
            join(writer);
        }
        if (writerFailed.get() != null) {
            throw new IllegalStateException("the background writer failed: " + writerFailed.get(), writerFailed.get());
        }
    }

    /** Polls {@code probe} until it answers {@code rows} rows; the time it did, or -1 after {@code deadline}. */
    private static long visible(Statement s, String probe, int rows, long deadline) throws SQLException {
        while (true) {
            int n = 0;
            try (ResultSet r = s.executeQuery(probe)) {
                while (r.next()) {
                    n++;
                }
            }
            long now = System.nanoTime();
            if (n == rows) {
                return now;
            }
            if (now > deadline) {
                return -1;
            }
            LockSupport.parkNanos(500_000);
        }
    }

    /**
     * The temporal shape's writes in the background: {@link #TEMPORAL_WRITES_PER_S} rows a second, as an
     * insert of ten rows every 10 ms into Tandem and the same rows into PostgreSQL, until {@code stop}.
     */
    private static void background(SqlShape shape, String jdbc, PostgresServer postgres, AtomicBoolean stop, AtomicLong written,
            AtomicReference<Throwable> failed) {
        int batch = TEMPORAL_WRITES_PER_S / 100;
        try (Connection t = DriverManager.getConnection(jdbc); Connection p = DriverManager.getConnection(postgres.jdbcUrl());
                Statement ts = t.createStatement(); Statement ps = p.createStatement()) {
            long next = System.nanoTime();
            for (long n = 0; !stop.get(); n++) {
                StringBuilder insert = new StringBuilder("INSERT INTO ").append(shape.tables().getFirst().name()).append(" VALUES ");
                for (int i = 0; i < batch; i++) {
                    insert.append(i == 0 ? "" : ", ").append(shape.background().apply(n * batch + i));
                }
                ts.executeUpdate(insert.toString());
                ps.executeUpdate(insert.toString());
                written.addAndGet(batch);
                next += TimeUnit.MILLISECONDS.toNanos(10);
                LockSupport.parkNanos(next - System.nanoTime());
            }
        } catch (SQLException | RuntimeException e) {
            failed.compareAndSet(null, e);
        }
    }

    /**
     * The dataflow's operator time (ns) and steps summed over operators and workers, read strictly
     * serializable once two reads half a second apart agree (the collection is sampled every 100 ms; a view
     * that keeps working, as a sliding window does, is read after 3 s); null if unreadable.
     */
    private static long[] operatorWork(String jdbc, String dataflow) {
        long[] last = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        try (Connection c = DriverManager.getConnection(jdbc); Statement s = c.createStatement()) {
            // a serializable read may be served from an older sample
            s.execute("SET transaction_isolation = 'strict serializable'");
            while (System.nanoTime() < deadline) {
                long[] now = new long[2];
                try (ResultSet r = s.executeQuery("SELECT dataflow, elapsed_ns, invocations FROM tandem_internal.operator_elapsed")) {
                    while (r.next()) {
                        if (dataflow.equals(r.getString(1))) {
                            now[0] += r.getLong(2);
                            now[1] += r.getLong(3);
                        }
                    }
                }
                if (last != null && last[0] == now[0] && last[1] == now[1]) {
                    return now;
                }
                last = now;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
            }
            return last;
        } catch (SQLException e) {
            BenchMain.log("tandem_internal.operator_elapsed unreadable: %s", e.getMessage());
            return null;
        }
    }

    /**
     * Whether the view's rows equal PostgreSQL's query's (the shape's compared columns, as a multiset). A view of a
     * query reading {@code now()} is read part by part {@code AS OF} the latest time its index is complete at, and
     * PostgreSQL answers that part with {@code now()} pinned to the same time, so the two agree at any scale.
     */
    private static void compare(SqlShape shape, Connection tandem, String view, String index, PostgresServer postgres, ObjectNode arm)
            throws SQLException {
        long[] pins = new long[DIGEST_PARTS];
        String select = "SELECT " + shape.checkColumns() + " FROM ";
        String here;
        try (Statement s = tandem.createStatement()) {
            here = digest(s, part -> {
                pins[part] = shape.readsNow() ? complete(s, index) : 0;
                return select + view + part(shape, part) + (shape.readsNow() ? " AS OF " + pins[part] : "");
            });
            if (shape.staleFilter() != null) {
                String stale = digest(s, part -> {
                    long at = complete(s, index);
                    return select + view + part(shape, part) + " AND " + shape.staleFilter().apply(Instant.ofEpochMilli(at)) + " AS OF " + at;
                });
                arm.put("stale_rows", stale);
                here = stale.startsWith("0 ") ? here : "stale rows: " + stale;
            }
        }
        String there;
        try (Connection c = DriverManager.getConnection(postgres.jdbcUrl()); Statement s = c.createStatement()) {
            there = digest(s, part -> select + "(" + shape.queryAt(Instant.ofEpochMilli(pins[part])) + ") q" + part(shape, part));
        }
        arm.put("equal", here.equals(there));
        arm.put("tandem_digest", here);
        arm.put("postgresql_digest", there);
        BenchMain.log("[%s] the view %s PostgreSQL's query (%s; PostgreSQL %s)", shape.name(), here.equals(there) ? "equals" : "DIFFERS FROM", here, there);
    }

    /** The latest time {@code index} is complete at (its write frontier less one), which a read {@code AS OF} answers at once. */
    private static long complete(Statement s, String index) {
        try (ResultSet r = s.executeQuery("SELECT write_frontier FROM tandem_internal.indexes WHERE name = '" + index + "'")) {
            if (!r.next() || r.getObject(1) == null) {
                throw new IllegalStateException("index " + index + " has no write frontier");
            }
            return r.getLong(1) - 1;
        } catch (SQLException e) {
            throw new IllegalStateException("index " + index + ": " + e.getMessage(), e);
        }
    }

    /** The condition selecting part {@code part} of the {@link #DIGEST_PARTS} parts by the view's key. */
    private static String part(SqlShape shape, int part) {
        return " WHERE (" + shape.key() + " % " + DIGEST_PARTS + " + " + DIGEST_PARTS + ") % " + DIGEST_PARTS + " = " + part;
    }

    /**
     * {@code "<rows> <hash>"} of the rows of the statements {@code part.apply(0..DIGEST_PARTS-1)} (a statement whose pinned
     * time was compacted away is asked for again, up to ten times): the row count and
     * the sum of a 64-bit hash of each row's text, so order does not matter. Read in {@link #DIGEST_PARTS} parts by
     * the view's key, each within the server's largest result (100,000 rows by default).
     */
    private static String digest(Statement s, IntFunction<String> part) throws SQLException {
        long rows = 0;
        long sum = 0;
        for (int p = 0; p < DIGEST_PARTS; p++) {
            long[] d = null;
            for (int attempt = 1; d == null; attempt++) {
                try {
                    d = digestPart(s, part.apply(p));
                } catch (SQLException e) {
                    // a time pinned before the read ran may be compacted away by then (72000): pin a fresh one
                    if (!"72000".equals(e.getSQLState()) || attempt == 10) {
                        throw e;
                    }
                }
            }
            rows += d[0];
            sum += d[1];
        }
        return rows + " " + Long.toHexString(sum);
    }

    /** Parts a digest reads a view in: 1.3 M rows (the closure's) are at most about 41,000 a part. */
    private static final int DIGEST_PARTS = 64;

    private static long[] digestPart(Statement s, String sql) throws SQLException {
        long rows = 0;
        long sum = 0;
        try (ResultSet r = s.executeQuery(sql)) {
            int columns = r.getMetaData().getColumnCount();
            while (r.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    b.append(r.getString(i)).append('|');
                }
                long h = 0xcbf29ce484222325L;
                for (int i = 0; i < b.length(); i++) {
                    h = (h ^ b.charAt(i)) * 0x100000001b3L;
                }
                sum += BenchWorkload.mix(h);
                rows++;
            }
        }
        return new long[] {rows, sum};
    }

    private static void drop(SqlShape shape, Statement s, String view, String index) throws SQLException {
        s.execute("DROP INDEX IF EXISTS " + index);
        s.execute("DROP VIEW IF EXISTS " + view);
        for (SqlShape.Table t : shape.tables()) {
            s.execute("DROP TABLE IF EXISTS " + t.name());
        }
    }

    /** The nearest-rank {@code q} quantile of the latencies (ns) in milliseconds, or null when there are none. */
    static Double quantileMs(List<Long> nanos, double q) {
        if (nanos.isEmpty()) {
            return null;
        }
        List<Long> sorted = nanos.stream().sorted().toList();
        int rank = (int) Math.ceil(q * sorted.size());
        return LatencySummary.round(sorted.get(Math.max(0, rank - 1)) / 1e6);
    }

    private static String row(String name, ObjectNode arm) {
        if (arm.has("refused") || arm.has("failed")) {
            String why = arm.has("refused") ? "refused: " + arm.path("refused").asString() : "**failed**: " + arm.path("failed").asString();
            return "| " + name + " | " + why.replace("|", "\\|") + " | | | | | | | | " + BenchReport.ms(arm.path("postgresql_one_shot_ms").asDouble()) + " | |";
        }
        JsonNode c = arm.path("changes");
        JsonNode w = arm.path("operator_work");
        return "| " + name + " | " + BenchReport.num(arm.path("hydration_s"), 2) + " | " + arm.path("postgresql_rows").asLong() + " | "
                + c.path("count").asLong() + (c.path("incomplete").asLong() > 0 ? " (+" + c.path("incomplete").asLong() + " not visible)" : "") + " | "
                + ms(c, "p50_ms") + " | " + ms(c, "p99_ms") + " | " + ms(c, "max_ms") + " | " + BenchReport.num(w.path("ms_per_change"), 2) + " | "
                + BenchReport.num(w.path("steps_per_change"), 0) + " | " + BenchReport.ms(arm.path("postgresql_one_shot_ms").asDouble()) + " | "
                + (arm.path("equal").asBoolean() ? "yes" : "**no**") + " |";
    }

    private static String ms(JsonNode node, String field) {
        return BenchReport.ms(node.path(field).isNumber() ? node.path(field).asDouble() : null);
    }

    private static void join(Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
