package dev.tandem.pgwire;

import static dev.tandem.pgwire.PgAnswers.update;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code to_char} of dates, timestamps, intervals and numbers, {@code age} and {@code format}: every template pattern over
 * month ends, leap days, times around noon and midnight, negative intervals and numbers positive, negative, zero, NULL and
 * too large for their template, answered by Tandem and by a real PostgreSQL 15 (UTC) with the same text, the same column
 * types and the same SQLSTATE for errors, in the text and binary formats; and what Tandem refuses, refused with
 * {@code 0A000}. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresFormattingTest {

    private static final List<String> TIMESTAMPS = List.of("2024-01-01 00:00:00", "2024-02-29 12:00:00", "2024-03-05 14:07:09.123456",
            "2023-12-31 23:59:59.999999", "2021-01-03 01:02:03.5", "2020-12-31 11:59:59", "2024-12-30 00:00:00.000001", "1999-07-04 13:00:00",
            "0001-01-01 00:00:00", "9999-12-31 23:59:59", "2023-02-28 12:30:00", "2000-02-29 06:00:00", "1970-01-01 00:00:00",
            "2011-11-11 11:11:11.011", "2013-03-22 22:22:22", "1900-03-01 00:00:00", "2009-01-04 03:04:05", "2010-01-03 09:08:07");

    private static final List<String> INTERVALS = List.of("1 year 2 mons 3 days 04:05:06.5", "-1 days -04:05:06.5", "00:00:00", "25:00:00",
            "-13 mons", "12 mons", "1 mon -1 days 00:00:01", "100 years", "-00:00:00.000001", "13:59:59.999");

    private static final List<String> DATETIME_TEMPLATES = List.of(
            "YYYY-MM-DD", "YYYY-MM-DD HH24:MI:SS", "YYYY-MM-DD HH24:MI:SS.MS", "YYYY-MM-DD\"T\"HH24:MI:SS.US", "YY MM DD", "YYY Y",
            "Mon DD, YYYY", "MON mon Mon", "Month MONTH month", "FMMonth FMMONTH FMmonth", "Day DAY day", "FMDay FMDAY FMday",
            "Dy DY dy", "D ID DDD IDDD", "FMDDD FMIDDD", "HH HH12 HH24 hh hh12 hh24", "FMHH FMHH12 FMHH24", "MI SS MS US",
            "FMMI FMSS FMMS FMUS", "AM PM am pm A.M. P.M. a.m. p.m.", "HH12:MI AM", "TZ tz", "Q WW IW W", "FMWW FMIW", "IYYY IYY IY I",
            "FMIYYY", "J", "CC cc", "FMCC", "Y,YYY y,yyy", "RM rm FMRM", "SSSS SSSSS", "FF1 FF2 FF3 FF4 FF5 FF6", "OF TZH TZM FMOF",
            "AD BC A.D. B.C. ad bc a.d. b.c.", "DDth DDTH Dth Mth MMth", "FMDDth FMDDTH", "DDDth IWth WWth Qth Jth YYYYth HH24th HHth MIth SSth",
            "CCth Wth IDth", "\"Quoted YYYY\" YYYY", "\"in \\\"quotes\\\"\" DD", "\\\"DD\\\"", "a\\DD", "yyyy-mm-dd hh24:mi:ss",
            "FMDD/FMMM/YYYY", "FMxx DD", "FMFMDD", "DDSP", "Year: YYYY, day: DDD", "!@#$%^&*()_+[];',./", "", "DDDD", "MMMM", "HH24HH24",
            "YYYYYYYY", "Dd dD", "mONTH", "Ww", "SSS", "UUS");

    private static final List<String> INTERVAL_TEMPLATES = List.of(
            "YYYY MM DD HH24:MI:SS.MS", "HH HH12 HH24 MI SS MS US", "FMHH24:FMMI:FMSS", "DDD", "AM PM", "YYYY YYY YY Y", "SSSS FF3",
            "HH24th DDth", "\"x\" DD", "Mon", "Day", "TZ", "AD");

    private static final List<String> NUMBERS = List.of("0", "1", "-1", "5", "-5", "0.5", "-0.5", "0.004", "-0.004", "12.345", "-12.345",
            "123.456", "1234.5", "-1234.5", "99999", "100000", "-100000", "1234567.891", "0.1", "-0.1", "9.995", "9.994", "12345678901234",
            "-0.0001", "NULL");

    private static final List<String> NUMBER_TEMPLATES = List.of(
            "999", "9999", "99999", "999999", "99999999", "00000", "0000", "000.00", "999.99", "9990.99", "FM999.99", "FM999,999.00",
            "999,999.00", "FM9,999,999.999", "9,999,999.999", "9.99EEEE", "9.9EEEE", "9EEEE", "99.999EEEE", "S999", "S9999.99", "999S",
            "999.99S", "FMS999", "MI999", "999MI", "FM999MI", "PL999", "999PL", "FMPL999", "SG999", "999SG", "FMSG999", "9G999D99",
            "FM9G999D99", "FM0000", "FM9990.00", "FM9.9", "FM9.", "9.", ".99", "FM.99", "0.99", "90.99", "09.99", "FM090.90",
            "\"Total:\" 999", "999 \"units\"", "9,9,9", "FM999,999", "\\\"9\\\"", "\"abc\" 999 xyz", "99.99.99", "S99S", "");

    private static final List<String> FORMATS = List.of(
            "SELECT format('Hello %s', 'World'), format('%s %s', 'a', 'b'), format('%%'), format('no args'), format('%s', NULL)",
            "SELECT format('%I', 'Foo'), format('%I', 'foo'), format('%I', 'select'), format('%I', 'a b'), format('%I', 'int'), format('%I', 'a\"b')",
            "SELECT format('%L', 'it''s'), format('%L', NULL), format('%L', 'back\\slash'), format('%L', '')",
            "SELECT format('%1$s %1$s', 'x'), format('%2$s %1$s', 'a', 'b'), format('%2$s %s', 'a', 'b', 'c'), format('%3$s', 'a', 'b', 'c')",
            "SELECT format('|%10s|', 'abc'), format('|%-10s|', 'abc'), format('|%2s|', 'abcdef'), format('|%-5L|', 'x'), format('|%5s|', NULL)",
            "SELECT format('|%1$10s|%1$-10s|', 'é'), format('%s', 42), format('%s + %s', 1, 2), format('%L', 7), format('%s', 1.50)",
            "SELECT format('%s', DATE '2024-01-02'), format('%s', '2024-01-02 03:04:05+00'::timestamptz), format('%L', DATE '2024-01-02')",
            "SELECT format('%s', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid),"
                    + " format('%s', 12345678901234::bigint), format('%s', -0.00100::numeric)",
            "SELECT format(NULL, 'a'), format('%s', 'a', 'b'), format('%-s|', 'a'), format('%0s|', 'a'), format('%--3s|', 'a')",
            "SELECT format('%I', NULL)", "SELECT format('%s %s', 'a')", "SELECT format('%x', 'a')", "SELECT format('%', 'a')",
            "SELECT format('%0$s', 'a')", "SELECT format('%1$', 'a')", "SELECT format('%-', 'a')", "SELECT format('%5', 'a')",
            "SELECT format('%3$s', 'a')", "SELECT k, format('%s=%L', k, v) FROM ff ORDER BY k", "SELECT format('%s', v) FROM ff WHERE k = 2");

    private static final List<String> OTHER = List.of(
            "SELECT to_char(NULL::timestamp, 'YYYY'), to_char(TIMESTAMP '2024-01-02 03:04:05', NULL), to_char(NULL::numeric, '999')",
            "SELECT to_char(DATE '2024-03-05', 'YYYY-MM-DD HH24:MI:SS TZ')",
            "SELECT to_char(12345, '999.9.9')", "SELECT to_char(1, 'S9S')", "SELECT to_char(1, 'MI9S')",
            "SELECT to_char(interval '1 day', 'Day')", "SELECT to_char(interval '1 day', 'TZ')",
            "SELECT to_char(123::bigint, '999'), to_char(1.5::float8, '9.99'), to_char(2.5::float8, '9'), to_char(-2.5::float8, '9')",
            "SELECT to_char(0.125::float8, '9.99'), to_char(-0.0::float8, '9.9')", "SELECT to_char(10000000000::float8, '9.99EEEE'), to_char(-0.000123::float8, '9.99EEEE'), to_char(9.999::float8, '9.99EEEE')",
            "SELECT to_char(123456789012345678::bigint, '999999999999999999'), to_char(-9223372036854775808::bigint, 'FM9999999999999999999')",
            "SELECT to_char(1234.5::float8, 'FM999,999.00'), to_char(0.000123::float8, '9.99EEEE'), to_char(9.999::float8, '9.99EEEE')",
            "SELECT to_char(now(), 'YYYY') = to_char(current_date, 'YYYY')", "SELECT to_timestamp(1.5), to_timestamp(86400)",
            "SELECT to_char(true, '999')", "SELECT age(1)", "SELECT to_char(DATE '2024-01-02', 5)");

    private static final List<String> REFUSED = List.of(
            "SELECT to_char(TIMESTAMP '2024-01-02 03:04:05', 'TMMonth')",
            "SELECT to_char(TIMESTAMP '2024-01-02 03:04:05', 'FXYYYY')",
            "SELECT to_char(interval '1 day', 'J')",
            "SELECT to_char(interval '1 day', 'Q')",
            "SELECT to_char(12, 'RN')", "SELECT to_char(12, 'abc 99')", "SELECT to_char(12, '99V9')", "SELECT to_char(12, 'L99')", "SELECT to_char(-12, '99PR')",
            "SELECT to_char(12, '99th')", "SELECT to_char(12, 'FM9.9EEEE')", "SELECT to_char('NaN'::float8, '999')",
            "SELECT format('%*s', 3, 'a')", "SELECT to_date('05 Dec 2000', 'DD Mon YYYY')",
            "SELECT to_timestamp('2024-01-02 03:04', 'YYYY-MM-DD HH24:MI')", "SELECT format('%s', true)", "SELECT format('%s', TIMESTAMP '2024-01-02 03:04:05.5')", "SELECT format('%s', 1.5::float8)",
            "CREATE VIEW fv_age AS SELECT age(a) FROM fa");

    @TempDir
    Path dir;

    @Test
    void toCharAgeAndFormatAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> setup = new ArrayList<>(List.of(
                "CREATE TABLE ft (k bigint, ts timestamp, tz timestamptz, d date)",
                "CREATE TABLE fi (k bigint, iv interval)",
                "CREATE TABLE fn (k bigint, i bigint, n numeric, f double precision)",
                "CREATE TABLE fa (k bigint, a timestamp, b timestamptz, d date)",
                "CREATE TABLE ff (k bigint, v text)",
                "INSERT INTO ff VALUES (1, 'o''k'), (2, NULL), (3, 'x\\y')"));
        for (int i = 0; i < TIMESTAMPS.size(); i++) {
            String t = TIMESTAMPS.get(i);
            setup.add("INSERT INTO ft VALUES (" + i + ", '" + t + "', '" + t + "+00', '" + t.substring(0, 10) + "')");
            setup.add("INSERT INTO fa VALUES (" + i + ", '" + t + "', '" + t + "+00', '" + t.substring(0, 10) + "')");
        }
        setup.add("INSERT INTO ft VALUES (100, NULL, NULL, NULL)");
        for (int i = 0; i < INTERVALS.size(); i++) {
            setup.add("INSERT INTO fi VALUES (" + i + ", '" + INTERVALS.get(i) + "')");
        }
        for (int i = 0; i < NUMBERS.size(); i++) {
            String n = NUMBERS.get(i);
            String integer = n.equals("NULL") ? "NULL" : new java.math.BigDecimal(n).setScale(0, java.math.RoundingMode.DOWN).toPlainString();
            setup.add("INSERT INTO fn VALUES (" + i + ", " + integer + ", " + n + ", " + n + ")");
        }
        List<String> queries = new ArrayList<>();
        for (String template : DATETIME_TEMPLATES) {
            String q = "'" + template.replace("'", "''") + "'";
            queries.add("SELECT k, to_char(ts, " + q + "), to_char(tz, " + q + "), to_char(d, " + q + ") FROM ft");
        }
        for (String template : INTERVAL_TEMPLATES) {
            queries.add("SELECT k, to_char(iv, '" + template + "') FROM fi");
        }
        for (String template : NUMBER_TEMPLATES) {
            String q = "'" + template.replace("'", "''") + "'";
            queries.add("SELECT k, to_char(i, " + q + "), to_char(n, " + q + "), to_char(f, " + q + ") FROM fn");
        }
        queries.add("SELECT x.k, y.k, age(x.a, y.a), age(x.b, y.b), age(x.d, y.d) FROM fa x, fa y");
        queries.add("SELECT age(TIMESTAMP '2024-03-31', TIMESTAMP '2024-02-29'), age(TIMESTAMP '2024-02-29', TIMESTAMP '2024-03-31'),"
                + " age(TIMESTAMP '2023-03-01', TIMESTAMP '2023-01-31'), age(TIMESTAMP '2023-01-31', TIMESTAMP '2023-03-01'),"
                + " age(TIMESTAMP '2024-01-31 10:00', TIMESTAMP '2024-02-01 09:00'), age(NULL::timestamp, TIMESTAMP '2024-01-01')");
        queries.add("SELECT k, age(a) > interval '0 days', age(d) = age(d::timestamp) FROM fa");
        queries.addAll(FORMATS);
        queries.addAll(OTHER);
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "DATE,TIMESTAMPTZ,TIMESTAMP,INTERVAL")) {
            systems.executeOnAll("SET TimeZone = 'UTC'");
            try (Statement p = systems.pg().createStatement(); Statement t = systems.td().createStatement()) {
                for (String table : List.of("ft", "fi", "fn", "fa", "ff")) {
                    p.execute("DROP TABLE IF EXISTS " + table);
                }
                for (String sql : setup) {
                    p.execute(sql);
                    t.execute(sql);
                }
            }
            systems.compareAll(queries, mismatches);
            randomTemplates(systems, mismatches);
            for (String q : REFUSED) {
                String got = update(systems.td(), q);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    private static final List<String> DATETIME_PIECES = List.of("YYYY", "YYY", "YY", "Y", "Y,YYY", "IYYY", "IY", "MM", "Mon", "MON", "mon",
            "Month", "MONTH", "month", "DD", "D", "ID", "DDD", "IDDD", "Day", "DAY", "day", "Dy", "DY", "dy", "HH", "HH12", "HH24", "hh24",
            "MI", "SS", "MS", "US", "FF2", "FF5", "SSSS", "AM", "pm", "A.M.", "p.m.", "AD", "bc", "TZ", "tz", "OF", "TZH", "TZM", "Q", "W", "WW",
            "IW", "J", "CC", "RM", "rm", "FM", "TH", "th", "-", "/", ":", " ", ".", ",", "\"x\"", "\"\"", "x", "T", "\\", "%", "é");

    private static final List<String> NUMBER_PIECES = List.of("9", "9", "9", "0", "0", ".", "D", ",", "G", "S", "MI", "PL", "SG", "FM",
            "EEEE", " ", "\"x\"", "-", "$", "é");

    /**
     * Seeded random templates of PostgreSQL's patterns, each applied to every row: where Tandem answers (anything but a refusal,
     * {@code 0A000}), its answer is PostgreSQL's.
     */
    private static void randomTemplates(PgAnswers.Systems systems, List<String> mismatches) {
        java.util.Random random = new java.util.Random(20261205);
        int answered = 0;
        for (int t = 0; t < 400; t++) {
            boolean number = t % 2 == 1;
            List<String> pieces = number ? NUMBER_PIECES : DATETIME_PIECES;
            StringBuilder template = new StringBuilder();
            for (int i = 0, n = 1 + random.nextInt(number ? 8 : 6); i < n; i++) {
                template.append(pieces.get(random.nextInt(pieces.size())));
            }
            String q = "'" + template.toString().replace("'", "''") + "'";
            String sql = number ? "SELECT k, to_char(i, " + q + "), to_char(n, " + q + "), to_char(f, " + q + ") FROM fn"
                    : "SELECT k, to_char(ts, " + q + "), to_char(tz, " + q + "), to_char(d, " + q + ") FROM ft";
            String expected = PgAnswers.answer(systems.pg(), sql, false);
            String got = PgAnswers.answer(systems.td(), sql, false);
            if (!got.equals("ERROR 0A000")) {
                answered++;
                PgAnswers.compare(sql, expected, got, "random", mismatches);
            }
        }
        assertThat(answered).as("random templates Tandem answered").isGreaterThan(200);
    }
}
