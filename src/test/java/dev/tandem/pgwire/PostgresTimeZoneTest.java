package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;

/**
 * The session's {@code TimeZone}: {@code SET}/{@code SHOW}/{@code RESET}, the start-up parameter and the ParameterStatus that
 * reports it, and everything that depends on it — the text of a {@code timestamptz}, literals without an offset, casts between
 * {@code timestamptz} and {@code timestamp}, {@code date}, {@code time} and text, {@code date_trunc}, {@code extract},
 * {@code to_char}, {@code timestamptz ± interval} across daylight-saving changes, {@code AT TIME ZONE}, point lookups, parameters
 * and statements planned once and run in several zones — answered by Tandem and by a real PostgreSQL 15 alike in UTC, Europe/Berlin,
 * America/St_Johns (-03:30), Asia/Kolkata (+05:30), America/New_York and fixed offsets; and maintained views that name their zone.
 * Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresTimeZoneTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE tz (k bigint, ts timestamptz, t timestamp, d date)",
            "INSERT INTO tz VALUES (1, '2024-03-31 00:30:00+00', '2024-03-31 02:30', '2024-03-31'),"
                    + " (2, '2024-03-31 01:30:00+00', '2024-10-27 02:30', '2024-10-27'), (3, '2024-10-27 00:30:00.25+00', '2024-01-01 00:00', '2024-01-01'),"
                    + " (4, '2024-10-27 01:30:00+00', '2024-03-10 02:30', '2024-03-10'), (5, '2024-11-03 05:30:00+00', '2024-11-03 01:30', '2024-11-03'),"
                    + " (6, '2023-12-31 23:59:59.999999+00', '2023-12-31 23:59:59', '2023-12-31'), (7, '2024-03-10 05:29:59+00', '2024-07-01 12:00', '2024-07-01'),"
                    + " (8, NULL, NULL, NULL), (9, '2024-02-29 18:45:00+00', '2024-02-29 23:59', '2024-02-29')");

    /** The zones each query runs in, as SET TIME ZONE / SET TimeZone write them. */
    private static final List<String> ZONES = List.of("SET TimeZone = 'UTC'", "SET TimeZone = 'Europe/Berlin'", "SET TIME ZONE 'America/St_Johns'",
            "SET TimeZone TO 'Asia/Kolkata'", "SET TIME ZONE 'america/new_york'", "SET TimeZone = '+02:00'", "SET TimeZone = 'UTC+3'",
            "SET TIME ZONE -5", "SET TIME ZONE 5.5", "SET TIME ZONE INTERVAL '+02:00' HOUR TO MINUTE", "SET TimeZone = 'Etc/GMT-14'");

    static final List<String> QUERIES = List.of(
            "SHOW TimeZone",
            "SELECT current_setting('TimeZone')",
            "SELECT k, ts FROM tz",
            "SELECT k, ts::text, ts::date, ts::time, ts::timestamp FROM tz",
            "SELECT k, t::timestamptz, d::timestamptz, CAST(t AS timestamp with time zone)::text FROM tz",
            "SELECT '2024-03-31 02:30'::timestamptz, '2024-10-27 02:30'::timestamptz, timestamptz '2024-07-01 12:00', '2024-01-01 00:00+05'::timestamptz",
            "SELECT '2024-03-10 02:30'::timestamptz, '2024-11-03 01:30'::timestamptz, '2024-01-01 00:00 Europe/Berlin'::timestamptz",
            "SELECT k, date_trunc('day', ts), date_trunc('hour', ts), date_trunc('month', ts), date_trunc('week', ts), date_trunc('minute', ts) FROM tz",
            "SELECT k, date_trunc('day', d), date_trunc('year', ts) FROM tz",
            "SELECT k, extract(hour FROM ts), extract(day FROM ts), extract(epoch FROM ts), extract(timezone FROM ts), extract(timezone_hour FROM ts),"
                    + " extract(timezone_minute FROM ts), date_part('dow', ts), extract(doy FROM ts) FROM tz",
            "SELECT k, to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US TZH:TZM OF'), to_char(ts, 'FMOF'), to_char(d, 'YYYY-MM-DD HH24:MI OF') FROM tz",
            "SELECT k, to_char(ts, 'TZ tz') FROM tz",
            "SELECT k, ts + interval '1 day', ts - interval '1 day', ts + interval '1 month', ts + interval '24 hours', interval '1 day 1 hour' + ts FROM tz",
            "SELECT k, ts AT TIME ZONE 'UTC', ts AT TIME ZONE 'America/New_York', t AT TIME ZONE 'Europe/Berlin', t AT TIME ZONE 'UTC' FROM tz",
            "SELECT k, (ts AT TIME ZONE 'Asia/Kolkata')::date, timezone('America/St_Johns', ts), d AT TIME ZONE 'UTC' FROM tz",
            "SELECT k FROM tz WHERE ts > '2024-03-31 02:00' ORDER BY k",
            "SELECT k FROM tz WHERE ts >= '2024-10-27 02:30'::timestamptz ORDER BY k",
            "SELECT k FROM tz WHERE ts = '2024-03-31 00:30:00+00' ORDER BY k",
            "SELECT k FROM tz WHERE t::timestamptz < ts ORDER BY k",
            "SELECT k, ts::text, ts::date FROM tz WHERE k = 2",
            "SELECT k, ts FROM tz WHERE k = 5",
            "SELECT ts::date, count(*) FROM tz GROUP BY ts::date",
            "SELECT k, ts::date = d, ts::timestamp > t FROM tz",
            "SELECT k, format('%s', ts), ts::text || '!', age(ts, d::timestamptz) FROM tz",
            "SELECT k, ARRAY[ts, ts + interval '1 hour'] FROM tz WHERE k < 4",
            "SELECT k, array_to_string(ARRAY[ts, ts + interval '1 hour'], ' ; ') FROM tz WHERE k < 4",
            "SELECT extract(hour FROM localtime) = extract(hour FROM now()), extract(minute FROM localtime) = extract(minute FROM now())",
            "SELECT '2024-06-01'::date::timestamptz, '2024-06-01 12:00'::timestamp::timestamptz, '2024-06-01 23:30+00'::timestamptz::date",
            "SELECT ('2024-06-01 23:30+00'::timestamptz)::time, ('2024-06-01 23:30+00'::timestamptz)::timestamp",
            "SELECT now()::date = current_date, localtimestamp = now()::timestamp",
            "SELECT '2024-01-01 00:00'::timestamptz AT TIME ZONE 'Nowhere/Land'",
            "SELECT k, ts AT TIME ZONE '+05' FROM tz WHERE k = 1");

    @TempDir
    Path dir;

    @Test
    void timestampsAnswerInEachZoneAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "DATE,TIMESTAMPTZ,TIMESTAMP,TIME")) {
            List<Connection> all = List.of(systems.pg(), systems.pgBinary(), systems.td(), systems.tdBinary());
            try (Statement p = systems.pg().createStatement(); Statement t = systems.td().createStatement()) {
                p.execute("SET TimeZone = 'UTC'");
                t.execute("SET TimeZone = 'UTC'");
                p.execute("DROP TABLE IF EXISTS tz");
                for (String sql : SETUP) {
                    p.execute(sql);
                    t.execute(sql);
                }
                t.execute("CREATE INDEX tz_k ON tz (k)");
            }
            for (String zone : ZONES) {
                for (Connection c : all) {
                    try (Statement s = c.createStatement()) {
                        s.execute(zone);
                    }
                }
                for (String q : QUERIES) {
                    PgAnswers.compare(zone + "; " + q, PgAnswers.answer(systems.pg(), q, false), PgAnswers.answer(systems.td(), q, false), "text", mismatches);
                    // a statement prepared in this zone (PostgreSQL reads a prepared statement's literals in the zone it was prepared in)
                    String prepared = q + " /* " + zone.replace("*", "") + " */";
                    PgAnswers.compare(zone + "; " + q, PgAnswers.answer(systems.pgBinary(), prepared, true), PgAnswers.answer(systems.tdBinary(), prepared, true),
                            "binary", mismatches);
                    compared += 2;
                }
                for (String q : List.of("SELECT k FROM tz WHERE ts >= ? ORDER BY k", "SELECT k, ?::timestamptz::text FROM tz WHERE k = 1")) {
                    PgAnswers.compare(zone + "; " + q, withParameter(systems.pg(), q), withParameter(systems.td(), q), "parameter", mismatches);
                    compared++;
                }
                String pgReported = systems.pg().unwrap(PGConnection.class).getParameterStatus("TimeZone");
                String tdReported = systems.td().unwrap(PGConnection.class).getParameterStatus("TimeZone");
                PgAnswers.compare(zone + "; ParameterStatus TimeZone", pgReported, tdReported, "report", mismatches);
            }
            for (String q : List.of("SET TimeZone = 'Nowhere/Land'", "SET TIME ZONE 'Mars/Olympus'", "RESET TimeZone",
                    "SET TIME ZONE LOCAL", "SET TIME ZONE DEFAULT", "SET TimeZone TO DEFAULT", "RESET ALL", "SET TimeZone = 'Europe/Berlin'", "BEGIN",
                    "SET TIME ZONE 'Asia/Kolkata'", "ROLLBACK", "BEGIN", "SET TimeZone = 'America/St_Johns'", "COMMIT", "RESET TIME ZONE")) {
                PgAnswers.compare(q, PgAnswers.update(systems.pg(), q) + " " + PgAnswers.answer(systems.pg(), "SHOW TimeZone", false),
                        PgAnswers.update(systems.td(), q) + " " + PgAnswers.answer(systems.td(), "SHOW TimeZone", false), "set", mismatches);
            }
            compared += samePlanInTwoZones(systems.pg(), systems.td(), mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
        assertThat(compared).isGreaterThan(600);
    }

    /** One prepared statement (planned once) run in UTC, then in Berlin, then in Kolkata: each run answers in its zone. */
    private static int samePlanInTwoZones(Connection pg, Connection td, List<String> mismatches) {
        String q = "SELECT k, ts::text, ts::date, date_trunc('day', ts) FROM tz WHERE k = ?";
        int n = 0;
        List<String> expected = runs(pg, q);
        List<String> got = runs(td, q);
        for (int i = 0; i < expected.size(); i++) {
            PgAnswers.compare("prepared once, run " + i + ": " + q, expected.get(i), i < got.size() ? got.get(i) : "none", "plan", mismatches);
            n++;
        }
        return n;
    }

    private static List<String> runs(Connection c, String q) {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(q); Statement s = c.createStatement()) {
            for (String zone : List.of("UTC", "Europe/Berlin", "Asia/Kolkata", "UTC")) {
                s.execute("SET TimeZone = '" + zone + "'");
                for (long k : new long[] {1, 2, 3}) {
                    ps.setLong(1, k);
                    try (ResultSet rs = ps.executeQuery()) {
                        out.add(zone + " " + PgAnswers.rows(rs, false));
                    }
                }
            }
        } catch (SQLException e) {
            out.add("ERROR " + e.getSQLState());
        }
        return out;
    }

    private static String withParameter(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            ps.setObject(1, "2024-03-31 02:30", java.sql.Types.OTHER);
            try (ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /**
     * Sessions started in a zone: pgjdbc's {@code TimeZone} start-up parameter (the JVM's zone), {@code options=-c TimeZone=...},
     * and an unknown zone ({@code 22023}, the connection refused); the zone reported at start-up as PostgreSQL reports it.
     */
    @Test
    void sessionsStartInTheClientsZone() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            String pgUrl = "jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable";
            String tdUrl = "jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable";
            String q = "SELECT '2024-07-01 12:00+00'::timestamptz::text, '2024-07-01 12:00'::timestamptz::text, '2024-07-01 23:30+00'::timestamptz::date";
            java.util.TimeZone jvm = java.util.TimeZone.getDefault();
            for (String zone : List.of("Asia/Kolkata", "America/St_Johns", "GMT+05:30", "Europe/Berlin")) {
                Connection pg;
                Connection td;
                java.util.TimeZone.setDefault(java.util.TimeZone.getTimeZone(zone));
                try {
                    pg = DriverManager.getConnection(pgUrl);
                    td = DriverManager.getConnection(tdUrl);
                } finally {
                    java.util.TimeZone.setDefault(jvm);
                }
                try (pg; td) {
                    PgAnswers.compare("JVM zone " + zone + ": start-up ParameterStatus", pg.unwrap(PGConnection.class).getParameterStatus("TimeZone"),
                            td.unwrap(PGConnection.class).getParameterStatus("TimeZone"), "start-up", mismatches);
                    for (String query : List.of(q, "SELECT current_setting('TimeZone')", "SHOW TimeZone")) {
                        PgAnswers.compare("JVM zone " + zone + ": " + query, PgAnswers.answer(pg, query, false), PgAnswers.answer(td, query, false), "start-up",
                                mismatches);
                    }
                }
            }
            String options = "&options=-c%20TimeZone%3DAmerica/St_Johns";
            try (Connection pg = DriverManager.getConnection(pgUrl + options); Connection td = DriverManager.getConnection(tdUrl + options)) {
                for (String query : List.of(q, "SHOW TimeZone")) {
                    PgAnswers.compare("options: " + query, PgAnswers.answer(pg, query, false), PgAnswers.answer(td, query, false), "options", mismatches);
                }
            }
            java.util.Properties props = new java.util.Properties();
            props.setProperty("options", "-c TimeZone=Nowhere/Land");
            assertThat(PgTimeZoneStartup.refusal(tdUrl, props)).isEqualTo(PgTimeZoneStartup.refusal(pgUrl, props)).isEqualTo("22023");
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** A SUBSCRIBE in a Berlin session: its snapshot computes in Berlin (dates and text of the rows), as PostgreSQL's query answers. */
    private static void subscribedInTheSessionsZone(Connection pg, Connection td, List<String> mismatches) throws SQLException {
        String q = "SELECT ts::text AS t, ts::date AS dday FROM tzm WHERE ts IS NOT NULL";
        List<String> expected = new ArrayList<>();
        try (Statement s = pg.createStatement(); ResultSet rs = s.executeQuery(q)) {
            while (rs.next()) {
                expected.add(rs.getString("t") + "|" + rs.getString("dday"));
            }
        }
        List<String> got = new ArrayList<>();
        td.setAutoCommit(false);
        try (Statement s = td.createStatement()) {
            s.execute("DECLARE zc CURSOR FOR SUBSCRIBE (" + q + ")");
            try (ResultSet rs = s.executeQuery("FETCH ALL FROM zc WITH (timeout = '2s')")) {
                while (rs.next()) {
                    for (long n = rs.getLong("mz_diff"); n > 0; n--) {
                        got.add(rs.getString("t") + "|" + rs.getString("dday"));
                    }
                }
            }
            td.rollback();
        } finally {
            td.setAutoCommit(true);
        }
        expected.sort(null);
        got.sort(null);
        PgAnswers.compare("SUBSCRIBE (" + q + ")", expected.toString(), got.toString(), "subscribe", mismatches);
    }

    /** What connecting with {@code props} answers: "connected", or the refusal's SQLSTATE. */
    private static final class PgTimeZoneStartup {
        static String refusal(String url, java.util.Properties props) {
            try (Connection c = DriverManager.getConnection(url, props); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SHOW TimeZone")) {
                rs.next();
                return "connected: " + rs.getString(1);
            } catch (SQLException e) {
                return e.getSQLState();
            }
        }
    }

    private static final List<String> VIEWS = List.of(
            "tzv_rows AS SELECT k, ts, ts AT TIME ZONE 'Europe/Berlin' AS berlin, (ts AT TIME ZONE 'Asia/Kolkata')::date AS kolkata FROM tzm"
                    + " WHERE ts > '2024-03-30 00:00:00+00'",
            "tzv_days AS SELECT (ts AT TIME ZONE 'America/St_Johns')::date AS dday, count(*) AS n, max(ts) AS last FROM tzm"
                    + " GROUP BY (ts AT TIME ZONE 'America/St_Johns')::date");

    /**
     * Indexed views that name their zone, created and written in a Berlin session (writes with literals read in Berlin),
     * equal to PostgreSQL's answers after each write; a view whose result depends on the session's zone is refused there.
     */
    @Test
    void maintainedViewsNameTheirZone() throws SQLException {
        java.util.Random random = new java.util.Random(31);
        List<String> times = List.of("'2024-03-31 01:30'", "'2024-03-31 03:30'", "'2024-10-27 02:30'", "'2024-10-27 02:30+00'", "'2024-12-31 23:30'",
                "'2024-01-01 00:15'", "NULL");
        PgAnswers.checkMaintainedViews(dir, 20, (pg, td, mismatches) -> {
            for (Connection c : List.of(pg, td)) {
                try (Statement s = c.createStatement()) {
                    s.execute("SET TimeZone = 'Europe/Berlin'");
                }
            }
            int withRows = PgAnswers.maintainedViews(pg, td, "tzm (k bigint, ts timestamptz)", VIEWS, name -> name.equals("tzv_days") ? "dday" : "k", 30,
                    PgAnswers.randomWrites(random, "tzm", "k", () -> times.get(random.nextInt(times.size())),
                            List.of("ts > '2024-10-27 02:00'", "ts::date = '2024-03-31'"),
                            () -> List.of("ts = ts + interval '1 day'", "ts = '2024-03-31 02:30'", "ts = ts - interval '1 month'"), List.of("ts < '2024-06-01'")),
                    mismatches);
            subscribedInTheSessionsZone(pg, td, mismatches);
            try (Statement s = td.createStatement()) {
                for (String v : List.of("CREATE VIEW tzv_local AS SELECT k, ts::date AS dday FROM tzm", "CREATE VIEW tzv_hours AS SELECT date_trunc('hour', ts) AS h FROM tzm",
                        "CREATE VIEW tzv_text AS SELECT k FROM tzm WHERE ts::text LIKE '2024-03%'", "CREATE VIEW tzv_lit AS SELECT k FROM tzm WHERE ts > '2024-06-01 00:00'")) {
                    PgAnswers.compare(v, "ERROR 0A000", PgAnswers.update(td, v), "refused", mismatches);
                }
                s.execute("SET TimeZone = 'UTC'");
                PgAnswers.compare("in UTC", "OK 0", PgAnswers.update(td, "CREATE VIEW tzv_local AS SELECT k, ts::date AS dday FROM tzm"), "created", mismatches);
            }
            return withRows;
        });
    }
}
