package dev.tandem.pgwire;

import static dev.tandem.pgwire.PgAnswers.answer;
import static dev.tandem.pgwire.PgAnswers.compare;
import static dev.tandem.pgwire.PgAnswers.rows;
import static dev.tandem.pgwire.PgAnswers.update;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code date} and {@code timestamp with time zone}: hand-written queries (literals, casts, comparisons,
 * ordering, grouping, {@code min}/{@code max}, joins, arithmetic, {@code extract}/{@code date_part}/{@code date_trunc},
 * invalid input) answered by Tandem and by a real PostgreSQL 15 in the UTC time zone with the same text of every value,
 * the same column type names and the same SQLSTATE for errors, over the simple protocol (text format) and over prepared
 * statements with binary transfer; and indexed views over them maintained through random writes. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresDatetimeTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE dx (k bigint, d date, ts timestamptz, t timestamp)",
            "INSERT INTO dx VALUES (1, '2024-01-02', '2024-01-02 03:04:05+00', '2024-01-02 03:04:05'),"
                    + " (2, DATE '2023-12-31', '2023-12-31 23:59:59.999999+00', '2023-12-31 23:59:59.5'),"
                    + " (3, NULL, NULL, NULL), (4, '2024-02-29', '2024-02-29 12:00:00+02', '2024-02-29 12:00:00'),"
                    + " (5, '1000-01-01', '1970-01-01 00:00:00Z', '1970-01-01 00:00:00'), (6, '2024-01-02', '2024-06-30T10:30:00.25-05:30', NULL)",
            "UPDATE dx SET d = d + 1 WHERE k = 6",
            "UPDATE dx SET ts = '2024-03-01 00:00:00+00', t = d WHERE k = 3",
            "CREATE INDEX dx_d ON dx (d)",
            "CREATE TABLE dj (d date, label text)",
            "INSERT INTO dj VALUES ('2024-01-02', 'a'), ('2024-01-03', 'b'), ('2023-12-31', 'c')");

    static final List<String> QUERIES = List.of(
            "SELECT k, d, ts, t FROM dx",
            "SELECT '2024-01-02'::date, DATE '2024-03-04', CAST('2024-1-2' AS date), '2024-01-02 10:00'::date",
            "SELECT '2024-01-02 03:04:05.123456+02'::timestamptz, CAST('2024-01-02' AS timestamp with time zone), '2024-01-02T03:04:05Z'::timestamptz",
            "SELECT 'x'::date",
            "SELECT '2024-02-30'::date",
            "SELECT '2024-13-01'::date",
            "SELECT 'nonsense'::timestamptz",
            "SELECT '2024-01-02 25:00:00+00'::timestamptz",
            "SELECT k FROM dx WHERE d = '2024-01-02' ORDER BY k",
            "SELECT k FROM dx WHERE d = DATE '2024-01-03' ORDER BY k",
            "SELECT k FROM dx WHERE d < '2024-01-01' ORDER BY k",
            "SELECT k FROM dx WHERE ts >= '2024-01-01 00:00:00+00' ORDER BY k",
            "SELECT k FROM dx WHERE d BETWEEN '2023-01-01' AND '2024-01-31' ORDER BY k",
            "SELECT k, d FROM dx ORDER BY d, k",
            "SELECT k, ts FROM dx ORDER BY ts DESC, k",
            "SELECT d, count(*) FROM dx GROUP BY d",
            "SELECT min(d), max(d), min(ts), max(ts), count(DISTINCT d), count(DISTINCT ts) FROM dx",
            "SELECT dx.k, dj.label FROM dx JOIN dj ON dx.d = dj.d",
            "SELECT k, d + 1, d - 1, 7 + d, (d - DATE '2024-01-01')::bigint, (d - d)::bigint, (d - '2000-01-01')::bigint FROM dx",
            "SELECT (DATE '2024-03-01' - DATE '2024-02-01')::bigint, DATE '2024-12-31' + 1",
            "SELECT k, d::timestamp, d::timestamptz, ts::date, t::date, ts::timestamp, t::timestamptz FROM dx",
            "SELECT k, d::text, ts::text FROM dx",
            "SELECT k, extract(year FROM d), extract(month FROM d), extract(day FROM d), extract(dow FROM d), extract(doy FROM d) FROM dx",
            "SELECT k, extract(epoch FROM d), extract(quarter FROM d), extract(week FROM d), extract(isodow FROM d) FROM dx",
            "SELECT k, extract(hour FROM ts), extract(minute FROM ts), extract(second FROM ts), extract(epoch FROM ts), extract(year FROM ts) FROM dx",
            "SELECT k, extract(hour FROM t), extract(second FROM t), extract(epoch FROM t) FROM dx",
            "SELECT k, date_part('year', d), date_part('month', ts), date_part('second', t) FROM dx",
            "SELECT k, date_trunc('month', ts), date_trunc('day', ts), date_trunc('hour', t), date_trunc('year', t), date_trunc('week', ts) FROM dx",
            "SELECT k, date_trunc('month', d) FROM dx",
            "SELECT extract(foo FROM DATE '2024-01-01')",
            "SELECT date_trunc('foo', ts) FROM dx",
            "SELECT extract(hour FROM DATE '2024-01-01')",
            "SELECT greatest(d, DATE '2024-01-01'), least(ts, '2024-01-01 00:00:00+00'::timestamptz), coalesce(d, '1999-01-01'::date) FROM dx",
            "SELECT CASE WHEN k > 2 THEN d ELSE DATE '2000-01-01' END FROM dx",
            "SELECT d > '2024-01-01', ts < '2024-01-01 00:00:00+00', d IS NULL FROM dx",
            "SELECT DISTINCT d FROM dx ORDER BY d",
            "SELECT d FROM dx UNION SELECT d FROM dj ORDER BY d",
            "SELECT k, timestamptz '2024-01-02 10:00+02', ts - '1 day'::date::timestamptz > ts FROM dx WHERE k = 1",
            "SELECT k FROM dx WHERE ts = '2024-01-02 03:04:05+00'",
            "SELECT '2024-06-01 12:00'::timestamptz::date, '2024-06-01 23:30:00-05'::timestamptz::date",
            // the statement's time: one value for the statement, typed as PostgreSQL types it
            "SELECT now() = current_timestamp, current_date = now()::date, localtimestamp = now()::timestamp,"
                    + " transaction_timestamp() <= statement_timestamp(), now() > '2024-01-01 00:00:00+00', date_trunc('day', now()) <= now()",
            "SELECT now(), current_timestamp, current_date, localtimestamp, transaction_timestamp() FROM dx WHERE k < 0",
            "SELECT k FROM dx WHERE ts < now() AND d <= current_date AND t < localtimestamp ORDER BY k",
            "SELECT k, ts > now() - interval '100 years', current_date - d > 0 FROM dx WHERE k = 1",
            "SELECT make_date(2024, 2, 29), to_timestamp(1.5), to_timestamp(-1), to_timestamp(1700000000.25), to_timestamp(0.0000005)",
            // a string beside a value of another type: the value as its cast to text writes it
            "SELECT k || ':' || d, 'at ' || ts, d || '', 'a' || 1 || true, 'x' || DATE '2024-01-02', 1 || 'y' FROM dx",
            "SELECT make_date(2023, 2, 29)", "SELECT make_date(0, 1, 1)", "SELECT make_date(2024, 13, 1)", "SELECT to_timestamp('NaN'::float8)",
            "SELECT k, make_date(extract(year FROM d)::int, 1, 1), to_timestamp(extract(epoch FROM ts)::float8) = ts FROM dx");

    /** What Tandem refuses (0A000) where PostgreSQL answers: values beyond years 1 to 9999, special values, clock_timestamp(). */
    static final List<String> REFUSED = List.of(
            "SELECT DATE '9999-12-31' + 1",
            "SELECT 'infinity'::date",
            "SELECT 'today'::date",
            "SELECT 'Jan 2 2024'::date",
            "SELECT '0044-03-15 BC'::date",
            "SELECT clock_timestamp() > now()",
            "SELECT make_date(-44, 3, 15)",
            "CREATE TABLE dp (ts timestamptz(3))");

    @TempDir
    Path dir;

    @Test
    void datesAndTimestampsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "DATE,TIMESTAMPTZ,TIMESTAMP", (systems, mismatches) -> {
            Connection pg = systems.pg();
            Connection td = systems.td();
            systems.executeOnAll("SET TimeZone = 'UTC'");
            systems.setUp(List.of("dx", "dj"), SETUP);
            // COPY FROM STDIN in text format
            systems.copyIn("COPY dj FROM STDIN", "2024-01-04\tcopied\n\\N\tnull date\n");
            int compared = systems.compareAll(QUERIES, mismatches);
            for (String q : List.of("SELECT d, label FROM dj", "SELECT k FROM dx WHERE d = ?", "SELECT k, ts FROM dx WHERE ts < ?")) {
                compared += systems.compareInBothFormats(q, c -> parameterized(c, q), mismatches);
            }
            for (String q : List.of("INSERT INTO dj VALUES ('2024-02-30', 'x')", "INSERT INTO dj VALUES ('not a date', 'x')",
                    "UPDATE dx SET ts = '2024-01-01 99:00' WHERE k = 1")) {
                compare(q, update(pg, q), update(td, q), "write", mismatches);
                compared++;
            }
            for (String q : REFUSED) {
                String got = update(td, q);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
                compared++;
            }
            compare("after refused writes", answer(pg, "SELECT * FROM dx", false), answer(td, "SELECT * FROM dx", false), "text", mismatches);
            return compared + 1;
        });
    }

    private static final List<String> VIEWS = List.of(
            "dv_groups AS SELECT g, min(d) AS lo, max(d) AS hi, max(ts) AS last, min(iv) AS shortest, count(DISTINCT u) AS ids,"
                    + " count(DISTINCT d) AS days FROM dm GROUP BY g",
            "dv_rows AS SELECT k, d + 7 AS week_later, ts + iv AS due, (d - DATE '2024-01-01')::bigint AS age, date_trunc('month', ts) AS month_start,"
                    + " extract(dow FROM d) AS dow, u FROM dm WHERE d >= '2024-01-01'",
            "dv_by_day AS SELECT d, count(*) AS n, max(iv) AS longest FROM dm GROUP BY d");

    /** Indexed views over dates, times, intervals and uuids, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfDatesAndTimesAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(11);
        List<String> dates = List.of("'2024-01-31'", "'2023-12-31'", "'2024-02-29'", "'2024-06-15'", "NULL");
        List<String> times = List.of("'2024-01-31 10:00:00+00'", "'2024-03-01 00:00:00.5+02'", "'1999-12-31 23:59:59+00'", "NULL");
        List<String> intervals = List.of("'1 day'", "'1 mon 2 days'", "'-3 hours'", "'1 year 00:00:01'", "NULL");
        List<String> ids = List.of("'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'ffffffff-0000-0000-0000-000000000000'", "NULL");
        PgAnswers.checkMaintainedViews(dir, 60, (pg, td, mismatches) -> {
            try (Statement p = pg.createStatement()) {
                p.execute("SET TimeZone = 'UTC'");
            }
            int[] counter = {0};
            int withRows = PgAnswers.maintainedViews(pg, td, "dm (k bigint, g text, d date, ts timestamptz, iv interval, u uuid)", VIEWS, name -> (name.equals("dv_rows") ? "k" : name.equals("dv_by_day") ? "d" : "g"), 40, w -> {
                int next = counter[0];
                return switch (w < 4 ? 0 : random.nextInt(3)) {
                    case 0 -> {
                        List<String> rows = new ArrayList<>();
                        for (int r = 0, n = 1 + random.nextInt(3); r < n; r++) {
                            rows.add("(" + counter[0]++ + ", " + List.of("'x'", "'y'", "NULL").get(random.nextInt(3)) + ", " + dates.get(random.nextInt(dates.size()))
                                    + ", " + times.get(random.nextInt(times.size())) + ", " + intervals.get(random.nextInt(intervals.size())) + ", "
                                    + ids.get(random.nextInt(ids.size())) + ")");
                        }
                        yield "INSERT INTO dm VALUES " + String.join(", ", rows);
                    }
                    case 1 -> "DELETE FROM dm WHERE " + List.of("k = " + random.nextInt(Math.max(1, next)), "d = '2024-01-31'", "ts < '2000-01-01 00:00:00+00'",
                            "u = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'").get(random.nextInt(4));
                    default -> "UPDATE dm SET " + List.of("d = d + 1", "ts = ts + iv", "iv = iv * 2", "d = '2024-06-15'").get(random.nextInt(4))
                            + " WHERE " + List.of("k = " + random.nextInt(Math.max(1, next)), "g = 'x'", "d > '2024-01-01'").get(random.nextInt(3));
                };
            }, mismatches);
            return withRows;
        });
    }

    private static String parameterized(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            if (q.contains("d = ?")) {
                ps.setObject(1, java.time.LocalDate.of(2024, 1, 2));
            } else if (q.contains("?")) {
                ps.setObject(1, java.time.OffsetDateTime.parse("2024-01-01T00:00:00+02:00"));
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rows(rs, true);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

}
