package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code time} (without time zone): columns, literals and casts, its text and binary formats (OID 1083),
 * comparisons, order, grouping, min/max and index keys, {@code time ± interval}, {@code time - time}, {@code date + time},
 * {@code extract}/{@code date_part} and invalid input, answered by Tandem and by a real PostgreSQL 15 in UTC alike; and
 * indexed views over a time column maintained through writes. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as
 * {@link PostgresDifferentialTest} is.
 */
class PostgresTimeTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE tt (k bigint, t time, u time without time zone, d date, ts timestamp)",
            "INSERT INTO tt VALUES (1, '12:34:56.789', '01:00', '2024-01-31', '2024-01-31 10:00:00.5'),"
                    + " (2, '00:00', '23:59:59.999999', '2024-02-29', '2023-02-28 23:59:59'), (3, '24:00:00', '12:00', NULL, NULL),"
                    + " (4, NULL, NULL, NULL, NULL), (5, '9:5:3', '09:05:03', '2024-03-01', '2024-03-01 00:00'),"
                    + " (6, '2024-01-02 03:04:05', '03:04:05.000001', NULL, NULL), (7, '12:34:56.789', '23:59:60', NULL, NULL)",
            "UPDATE tt SET u = u + interval '1 minute' WHERE k = 3",
            "CREATE INDEX tt_t ON tt (t)");

    static final List<String> QUERIES = List.of(
            "SELECT k, t, u FROM tt",
            "SELECT TIME '12:34:56.789', '12:34'::time, time '00:00:00.000001', CAST('23:59:59.5' AS time), '24:00'::time without time zone",
            "SELECT k, t::text, u::text FROM tt",
            "SELECT k, ts::time, d FROM tt",
            "SELECT k FROM tt WHERE t = '12:34:56.789' ORDER BY k",
            "SELECT k FROM tt WHERE t > '09:00' ORDER BY k",
            "SELECT k FROM tt WHERE t < u ORDER BY k",
            "SELECT k, t FROM tt ORDER BY t, k",
            "SELECT k, t FROM tt ORDER BY t DESC NULLS LAST, k",
            "SELECT t, count(*) FROM tt GROUP BY t",
            "SELECT min(t), max(t), min(u), max(u), count(DISTINCT t) FROM tt",
            "SELECT k, t + interval '1 hour', t - interval '13 hours', t + interval '1 day 2 hours', interval '30 minutes' + t, t + interval '1 mon' FROM tt",
            "SELECT k, t - u, u - t, t - '00:00'::time FROM tt",
            "SELECT k, d + t, t + d, d + '12:00'::time FROM tt",
            "SELECT k, extract(hour FROM t), extract(minute FROM t), extract(second FROM t), extract(millisecond FROM t),"
                    + " extract(microsecond FROM t), extract(epoch FROM t) FROM tt",
            "SELECT k, date_part('hour', t), date_part('second', t), date_part('epoch', u), date_part('milliseconds', u) FROM tt",
            "SELECT extract(day FROM t) FROM tt",
            "SELECT extract(fortnight FROM t) FROM tt",
            "SELECT 'x'::time",
            "SELECT '25:00'::time",
            "SELECT '12:60'::time",
            "SELECT '24:00:01'::time",
            "SELECT k, t FROM tt WHERE k = 9",
            "SELECT k, coalesce(t, '00:00'::time), greatest(t, u), least(t, u) FROM tt",
            "SELECT k, CASE WHEN t > '12:00' THEN t ELSE u END FROM tt",
            "SELECT k FROM tt WHERE t IN ('00:00', '24:00') ORDER BY k",
            "SELECT k FROM tt WHERE t BETWEEN '01:00' AND '13:00' ORDER BY k",
            "SELECT k FROM tt WHERE t IS DISTINCT FROM u ORDER BY k",
            "SELECT DISTINCT t FROM tt",
            "SELECT a.k, b.k FROM tt a JOIN tt b ON a.t = b.t AND a.k < b.k",
            "SELECT t::time FROM tt WHERE k = 1",
            "SELECT 1::time",
            "SELECT t + 1 FROM tt",
            "SELECT t + t FROM tt");

    private static final List<String> VIEWS = List.of(
            "tv_rows AS SELECT k, t, t + interval '90 minutes' AS later, t - time '06:00' AS since6, extract(hour FROM t) AS h FROM tm WHERE t > '03:00'",
            "tv_by AS SELECT t, count(*) AS n, max(k) AS kmax FROM tm GROUP BY t",
            "tv_minmax AS SELECT k % 2 AS parity, min(t) AS lo, max(t) AS hi FROM tm GROUP BY k % 2");

    @TempDir
    Path dir;

    @Test
    void timesAnswerAsPostgresDoes() throws SQLException, java.io.IOException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "TIME,INTERVAL,TIMESTAMP,DATE")) {
            systems.executeOnAll("SET TimeZone = 'UTC'");
            systems.setUp(List.of("tt"), SETUP);
            systems.copyIn("COPY tt (k, t) FROM STDIN", "9\t18:30:00.25\n10\t\\N\n");
            systems.compareAll(QUERIES, mismatches);
            for (String q : List.of("SELECT k FROM tt WHERE t = ? ORDER BY k", "SELECT k, t FROM tt WHERE t >= ? ORDER BY k")) {
                for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                    PgAnswers.compare(q, prepared(pair[0], q), prepared(pair[1], q), "parameter", mismatches);
                }
            }
            PgAnswers.compare("format_type(1083, -1)", PgAnswers.answer(systems.pg(), "SELECT format_type(1083, -1)", false),
                    PgAnswers.answer(systems.td(), "SELECT format_type(1083, -1)", false), "catalog", mismatches);
            String pgType = PgAnswers.answer(systems.td(), "SELECT oid, typname, typlen FROM pg_type WHERE typname = 'time'", false);
            if (!pgType.endsWith("[1083|time|8]")) {
                mismatches.add("pg_type's time (PostgreSQL: 1083|time|8), Tandem: " + pgType);
            }
            for (String q : List.of("SELECT '04:05 PM'::time", "SELECT '12:00'::time::interval", "SELECT 'allballs'::time", "CREATE TABLE tz (t time(3))",
                    "CREATE TABLE tz2 (t time with time zone)")) {
                String got = PgAnswers.update(systems.td(), q);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** Indexed views over a time column, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfTimesAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(57);
        List<String> times = List.of("'00:00'", "'03:30'", "'12:00:00.5'", "'23:59:59.999999'", "'24:00'", "'07:15'", "NULL");
        PgAnswers.checkMaintainedViews(dir, "tm (k bigint, t time)", VIEWS,
                name -> name.equals("tv_by") ? "t" : name.equals("tv_minmax") ? "parity" : "k", 30,
                PgAnswers.randomWrites(random, "tm", "k", () -> times.get(random.nextInt(times.size())), List.of("t > '12:00'", "t = '00:00'"),
                        () -> List.of("t = t + interval '5 hours'", "t = '07:15'", "t = t - interval '30 minutes'"), List.of("t < '06:00'")), 40);
    }

    private static String prepared(Connection c, String q) {
        try (java.sql.PreparedStatement ps = c.prepareStatement(q)) {
            ps.setObject(1, java.time.LocalTime.of(12, 34, 56, 789_000_000));
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }
}
