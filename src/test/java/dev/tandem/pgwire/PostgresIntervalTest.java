package dev.tandem.pgwire;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code interval}: input of quantities and units, output in the {@code postgres} IntervalStyle, comparisons
 * and order by span, arithmetic with timestamps, dates, intervals and numbers, and invalid input, answered by Tandem and by
 * a real PostgreSQL 15 in UTC alike over the text and binary formats. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as
 * {@link PostgresDifferentialTest} is.
 */
class PostgresIntervalTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE ix (k bigint, iv interval, ts timestamptz, t timestamp, d date)",
            "INSERT INTO ix VALUES (1, '1 day 02:03:04', '2024-01-31 10:00+00', '2024-01-31 10:00', '2024-01-31'),"
                    + " (2, '1 mon', '2024-03-31 00:00+00', '2023-02-28 23:59:59.5', '2024-02-29'), (3, '-1 days +02:00:00.5', NULL, NULL, NULL),"
                    + " (4, '1 year 2 months 3 days', NULL, NULL, NULL), (5, NULL, NULL, NULL, NULL), (6, '30 days', NULL, NULL, NULL),"
                    + " (7, '-2 hours -3 minutes', NULL, NULL, NULL), (8, '1.5 years', NULL, NULL, NULL)",
            "UPDATE ix SET iv = '5 minutes' WHERE k = 5",
            "UPDATE ix SET iv = iv * 2, ts = ts + '1 hour'::interval WHERE k = 1",
            "CREATE INDEX ix_k ON ix (k)");

    static final List<String> QUERIES = List.of(
            "SELECT k, iv FROM ix",
            "SELECT INTERVAL '1 day', '2 hours 30 minutes'::interval, interval '1.5 months', '3 days ago'::interval, '@ 1 week'::interval",
            "SELECT '0'::interval, '-1 year -2 mons'::interval, '1 year -1 mon'::interval, '100 hours'::interval, '0.000001 seconds'::interval",
            "SELECT k, ts + iv, ts - iv, t + iv, t - iv, d + iv, d - iv, iv + ts FROM ix",
            "SELECT k, ts - '2024-01-01 00:00+00'::timestamptz, t - '2024-01-01 00:00'::timestamp, '2023-01-01 00:00'::timestamp - t FROM ix",
            "SELECT k, iv * 2, iv * 1.5, 2 * iv, iv / 3, -iv, iv + iv, iv - INTERVAL '1 hour' FROM ix",
            "SELECT k FROM ix WHERE iv = '1 mon' ORDER BY k",
            "SELECT k FROM ix WHERE iv > '1 day' ORDER BY k",
            "SELECT k, iv FROM ix ORDER BY iv, k",
            "SELECT max(iv), min(iv) FROM ix",
            "SELECT k, iv::text FROM ix",
            "SELECT 'x'::interval",
            "SELECT '1:99'::interval",
            "SELECT '1 fortnight'::interval",
            "SELECT iv / 0 FROM ix",
            "SELECT TIMESTAMP '2024-01-31 00:00' + INTERVAL '1 month', DATE '2024-01-31' + INTERVAL '1 month'",
            "SELECT k, iv FROM ix WHERE k = 9",
            "SELECT iv, count(*) FROM ix WHERE k < 5 GROUP BY iv");

    @TempDir
    Path dir;

    @Test
    void intervalsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "INTERVAL,TIMESTAMPTZ,TIMESTAMP,DATE", (systems, mismatches) -> {
            systems.executeOnAll("SET TimeZone = 'UTC'");
            systems.setUp(List.of("ix"), SETUP);
            systems.copyIn("COPY ix (k, iv) FROM STDIN", "9\t2 days 03:00:00\n10\t\\N\n");
            int compared = systems.compareAll(QUERIES, mismatches);
            for (String q : List.of("SELECT 'P1D'::interval", "SELECT '1-2'::interval", "SELECT sum(iv) FROM ix", "SELECT avg(iv) FROM ix", "SELECT extract(epoch FROM iv) FROM ix")) {
                String got = PgAnswers.update(systems.td(), q);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
                compared++;
            }
            return compared;
        });
    }
}
