package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's {@code char(n)} ({@code bpchar}, OID 1042): columns, literals and casts, blank-padded output in the text
 * and binary formats, comparisons, order, grouping, DISTINCT, joins and index keys that ignore trailing spaces, the text
 * functions and {@code LIKE} (which see the padding), writes too long, the catalog psql reads; {@code localtime} and
 * {@code to_char} of a time; answered by Tandem and by a real PostgreSQL 15 alike, and indexed views over a char column
 * maintained through writes. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresCharTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE ct (k bigint, c char(3), d character(5), e char, v varchar(10), t text, w varchar)",
            "INSERT INTO ct VALUES (1, 'a', 'ab', 'x', 'a', 'a'), (2, 'a  ', 'ab   ', 'y', 'a  ', 'a  '), (3, 'abc', 'abcde', NULL, 'abc', 'abc'),"
                    + " (4, NULL, NULL, NULL, NULL, NULL), (5, '', '', ' ', '', ''), (6, 'é', 'éé', 'é', 'é', 'é'), (7, 'ab', ' ab', 'z', 'ab ', ' ab')",
            "INSERT INTO ct VALUES (8, 'abc   ', 'x', 'q', 'x', 'x  ')",
            "UPDATE ct SET d = 'a b' WHERE k = 8",
            "UPDATE ct SET w = v",
            "CREATE INDEX ct_c ON ct (c)");

    static final List<String> QUERIES = List.of(
            "SELECT k, c, d, e FROM ct",
            "SELECT k, c::text, d::text, e::text, length(d::varchar(10)) FROM ct",
            "SELECT k, length(c), length(d), char_length(e), character_length(c) FROM ct",
            "SELECT k, octet_length(c), octet_length(d), octet_length(e), octet_length(t), octet_length(c::text) FROM ct",
            "SELECT k, c || '|', d || '|', c || d, '<' || e FROM ct",
            "SELECT k FROM ct WHERE c = 'a' ORDER BY k",
            "SELECT k FROM ct WHERE c = 'a    ' ORDER BY k",
            "SELECT k FROM ct WHERE c = 'a'::char(3) ORDER BY k",
            "SELECT k FROM ct WHERE c <> 'a' ORDER BY k",
            "SELECT k FROM ct WHERE c = t ORDER BY k",
            "SELECT k FROM ct WHERE c::text = t ORDER BY k",
            "SELECT k FROM ct WHERE c > 'a' ORDER BY k",
            "SELECT k FROM ct WHERE c >= 'ab ' ORDER BY k",
            "SELECT k FROM ct WHERE c IN ('a', 'abc  ') ORDER BY k",
            "SELECT k FROM ct WHERE c NOT IN ('a ', 'ab') ORDER BY k",
            "SELECT k FROM ct WHERE c BETWEEN 'a' AND 'ab ' ORDER BY k",
            "SELECT k FROM ct WHERE c IS DISTINCT FROM 'a ' ORDER BY k",
            "SELECT k FROM ct WHERE c LIKE 'a%' ORDER BY k",
            "SELECT k FROM ct WHERE c LIKE 'a' ORDER BY k",
            "SELECT k FROM ct WHERE c LIKE '%  ' ORDER BY k",
            "SELECT k FROM ct WHERE d NOT LIKE '%e' ORDER BY k",
            "SELECT k FROM ct WHERE c ILIKE 'A__' ORDER BY k",
            "SELECT k FROM ct WHERE c ~ ' $' ORDER BY k",
            "SELECT k FROM ct WHERE d SIMILAR TO 'ab%' ORDER BY k",
            "SELECT k, c FROM ct ORDER BY c, k",
            "SELECT k, d FROM ct ORDER BY d DESC, k",
            "SELECT c, count(*) FROM ct GROUP BY c",
            "SELECT d, count(*), max(k) FROM ct GROUP BY d",
            "SELECT DISTINCT c FROM ct",
            "SELECT count(DISTINCT c), count(DISTINCT d), count(DISTINCT e) FROM ct",
            "SELECT min(c), max(c), min(d), max(d), max(e) FROM ct",
            "SELECT a.k, b.k FROM ct a JOIN ct b ON a.c = b.c AND a.k < b.k",
            "SELECT a.k, b.k FROM ct a JOIN ct b ON a.c = b.d",
            "SELECT a.k, b.k FROM ct a JOIN ct b ON a.c = b.t",
            "SELECT k, c = d, c < d, c = e FROM ct",
            "SELECT 'ab'::char(3), 'abcdef'::char(3), 'a'::char, 'a  '::character(2), CAST('xy' AS char(4)), 5::char(3), CAST(NULL AS char(2))",
            "SELECT 'ab'::char(3) = 'ab'::char(5), 'ab'::char(3) < 'ab '::char(3), 'a'::char(3) || 'b'",
            "SELECT k, c::char(5), d::char(2), t::char(4), k::char(2) FROM ct",
            "SELECT k, lower(d), replace(c, 'a', 'x'), position('b' in c), substring(d from 2 for 3), trim(d) FROM ct",
            "SELECT k, c FROM ct WHERE c IS NULL",
            "SELECT c, d FROM ct UNION SELECT c, d FROM ct",
            "SELECT c FROM ct UNION ALL SELECT e::char(3) FROM ct",
            "SELECT string_agg(c, ',' ORDER BY c) FROM ct",
            "SELECT k, c FROM (SELECT k, c FROM ct WHERE k < 4) s WHERE c = 'a ' ORDER BY k",
            "SELECT k, x FROM (SELECT k, c AS x FROM ct) s WHERE x LIKE 'a_%' ORDER BY k",
            "SELECT k, row_number() OVER (PARTITION BY c ORDER BY k) FROM ct ORDER BY k",
            "SELECT k, CASE WHEN k > 2 THEN c ELSE t END, coalesce(t, c), greatest(t, c), least(t, d), coalesce(t, c, d) FROM ct",
            "SELECT k, (CASE WHEN k > 2 THEN c ELSE v END) || '|', length(coalesce(v, c)), coalesce(v, d) || '|' FROM ct",
            "SELECT k, CASE WHEN k > 2 THEN c END, coalesce(c, c), nullif(c, 'a'), CASE WHEN k < 3 THEN NULL ELSE d END FROM ct",
            "SELECT k, greatest(c, c), least(d, d), nullif(t, d), nullif(d, 'ab'), nullif(c, d), CASE k WHEN 1 THEN c WHEN 2 THEN c ELSE NULL END FROM ct",
            "SELECT k FROM ct WHERE CASE WHEN k > 2 THEN c ELSE t END = 'a' ORDER BY k",
            "SELECT k FROM ct WHERE coalesce(c, c) = 'a  ' ORDER BY k",
            "SELECT k, coalesce(c, c) LIKE 'a  ', coalesce(c, c) || '|', length(nullif(c, 'x')) FROM ct ORDER BY k",
            "SELECT k, CASE WHEN k > 2 THEN c END FROM ct WHERE CASE WHEN k > 2 THEN c END > 'a' ORDER BY k",
            "SELECT t FROM ct UNION SELECT c FROM ct",
            "SELECT t FROM ct UNION ALL SELECT c FROM ct",
            "SELECT t || '' FROM ct UNION SELECT d FROM ct",
            "SELECT t FROM ct INTERSECT SELECT c FROM ct",
            "SELECT k, w || '|', length(w), w = t, w || '' = c::text FROM ct ORDER BY k",
            "SELECT to_char(time '13:45:30.5', 'HH24:MI:SS.MS'), to_char(time '01:02:03', 'HH12 MI SS'), to_char(time '00:00', 'HH24')",
            "SELECT to_char(localtime(0), 'US'), to_char(localtime, 'HH24') = to_char(localtimestamp, 'HH24'), localtime IS NOT NULL",
            "SELECT localtime(2) >= '00:00'::time, localtime(7) IS NOT NULL");

    /** What Tandem refuses (0A000) where PostgreSQL's answer keeps each value's own padding or has a type Tandem lacks. */
    private static final List<String> REFUSED = List.of(
            "SELECT coalesce(c, 'zz') FROM ct",
            "SELECT CASE WHEN k > 2 THEN c ELSE d END FROM ct",
            "SELECT c FROM ct UNION SELECT 'x'",
            "SELECT c FROM ct UNION SELECT d FROM ct",
            "SELECT c FROM ct UNION SELECT t FROM ct",
            "SELECT coalesce(c, t) FROM ct",
            "SELECT coalesce(c, d) FROM ct",
            "SELECT CASE WHEN k > 2 THEN t ELSE c END FROM ct",
            "SELECT greatest(c, t) FROM ct",
            "SELECT nullif(d, t) FROM ct",
            "SELECT nullif(c, v) FROM ct",
            "SELECT CASE WHEN k > 2 THEN t ELSE c::text END FROM ct",
            "SELECT nullif(c, 'a') = coalesce(c, 'x') FROM ct",
            "SELECT array_agg(c) FROM ct",
            "SELECT k FROM ct WHERE c = v",
            "SELECT k FROM ct WHERE c = w",
            "SELECT k FROM ct WHERE w <> c",
            "SELECT k FROM ct WHERE c = ANY (ARRAY['a', 'b'])",
            "CREATE TABLE cz (c bpchar)",
            "CREATE TABLE cz (c bpchar[])",
            "SELECT current_time",
            "SELECT current_time(2)");

    private static final List<String> CATALOG = List.of(
            "SELECT attname, format_type(atttypid, atttypmod), atttypid, atttypmod FROM pg_attribute WHERE attrelid = 'ct'::regclass AND attnum > 0"
                    + " ORDER BY attnum",
            "SELECT column_name, data_type, character_maximum_length, character_octet_length FROM information_schema.columns"
                    + " WHERE table_name = 'ct' ORDER BY ordinal_position",
            "SELECT format_type(1042, 7), format_type(1042, 5)");

    private static final List<String> VIEWS = List.of(
            "cv_rows AS SELECT k, c, c || '|' AS cat, length(c) AS n FROM cm WHERE c > 'a'",
            "cv_by AS SELECT c, count(*) AS n, max(k) AS kmax FROM cm GROUP BY c",
            "cv_minmax AS SELECT k % 2 AS parity, min(c) AS lo, max(c) AS hi FROM cm GROUP BY k % 2",
            "cv_like AS SELECT k, c FROM cm WHERE c LIKE '_b%' OR c = 'b'");

    @TempDir
    Path dir;

    @Test
    void charsAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        int compared;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "TIME,INT8_ARRAY")) {
            systems.executeOnAll("SET TimeZone = 'UTC'");
            systems.setUp(List.of("ct", "cz"), SETUP);
            for (String w : List.of("INSERT INTO ct (k, c) VALUES (100, 'abcd')", "INSERT INTO ct (k, d) VALUES (101, 'abcde  f')",
                    "INSERT INTO ct (k, c, e) VALUES (102, 'ab    ', 'w   ')", "UPDATE ct SET c = c || 'zz' WHERE k = 1",
                    "UPDATE ct SET c = 'xy' || ' ' WHERE k = 102", "DELETE FROM ct WHERE c = 'xy  '")) {
                PgAnswers.compare(w, PgAnswers.update(systems.pg(), w), PgAnswers.update(systems.td(), w), "write", mismatches);
            }
            systems.compareAll(QUERIES, mismatches);
            compared = 2 * QUERIES.size();
            for (String q : List.of("SELECT c, d, e, c::char(7), k::char(4), 'x'::char(2) FROM ct ORDER BY k", "SELECT c, d FROM ct WHERE k < 3 UNION ALL SELECT c, d FROM ct ORDER BY 1")) {
                for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                    PgAnswers.compare(q, described(pair[0], q), described(pair[1], q), "described", mismatches);
                    compared++;
                }
            }
            for (String q : List.of("SELECT k FROM ct WHERE c = ? ORDER BY k", "SELECT k FROM ct WHERE c > ? ORDER BY k", "SELECT k FROM ct WHERE c LIKE ? ORDER BY k")) {
                for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                    PgAnswers.compare(q, prepared(pair[0], q, "a  "), prepared(pair[1], q, "a  "), "parameter", mismatches);
                    PgAnswers.compare(q, prepared(pair[0], q, "ab%"), prepared(pair[1], q, "ab%"), "parameter", mismatches);
                    compared += 2;
                }
            }
            String arrays = "SELECT k FROM ct WHERE k = ANY (?) ORDER BY k";
            for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                PgAnswers.compare(arrays, arrayParameter(pair[0], arrays), arrayParameter(pair[1], arrays), "array parameter", mismatches);
                compared++;
            }
            for (String q : CATALOG) {
                // compared by value: the catalog's own columns are typed text where PostgreSQL's are name, oid, sql_identifier...
                String expected = PgAnswers.answer(systems.pg(), q, false);
                String got = PgAnswers.answer(systems.td(), q, false);
                PgAnswers.compare(q, expected.substring(expected.indexOf("] ") + 2), got.substring(got.indexOf("] ") + 2), "catalog", mismatches);
                compared++;
            }
            for (String q : REFUSED) {
                String got = PgAnswers.update(systems.td(), q);
                if (!got.equals("ERROR 0A000")) {
                    mismatches.add(q + ": expected a refusal (0A000), Tandem: " + got);
                }
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL in %d comparisons:\n%s", mismatches.size(), compared,
                String.join("\n", mismatches)).isEmpty();
    }

    /** Indexed views over a char column, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfCharsAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(61);
        List<String> values = List.of("'a'", "'a  '", "'ab'", "'b'", "'abc'", "''", "' b'", "NULL");
        PgAnswers.checkMaintainedViews(dir, "cm (k bigint, c char(3))", VIEWS,
                name -> name.equals("cv_by") ? "c" : name.equals("cv_minmax") ? "parity" : "k", 30,
                PgAnswers.randomWrites(random, "cm", "k", () -> values.get(random.nextInt(values.size())), List.of("c = 'a '", "c > 'ab'"),
                        () -> List.of("c = 'b  '", "c = left(c, 2) || 'b'", "c = upper(c)"), List.of("c = 'a'", "length(c) < 2")), 40);
    }

    /** psql's {@code \d} of a table of char(n), integer-array and numeric(p,s)-array columns, line for line as PostgreSQL 15's (skipped without psql). */
    @Test
    void psqlDescribesCharColumnsAsPostgresDoes() throws Exception {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        String psql = PgWireTesting.psql();
        Assumptions.assumeTrue(psql != null, "psql is not installed");
        String ddl = "CREATE TABLE cp (k int PRIMARY KEY, c char(3), d character(10) NOT NULL DEFAULT 'x', e char, i4 integer[], i2 smallint[], vs varchar(3)[], vu character varying[], vv varchar, nn numeric(5,2)[], nd decimal(4)[], ca char(2)[])";
        java.nio.file.Path script = dir.resolve("describe.sql");
        java.nio.file.Files.writeString(script, "\\d cp\nSELECT c, d, e FROM cp;\n");
        String host = address.substring(0, address.lastIndexOf(':'));
        int pgPort = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        String tandem;
        String postgres;
        try (SqlTesting.Stack stack = SqlTesting.stack(java.nio.file.Files.createDirectory(dir.resolve("data")));
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Statement t = td.createStatement();
                Statement p = pg.createStatement()) {
            p.execute("DROP TABLE IF EXISTS cp");
            for (Statement s : List.of(p, t)) {
                s.execute(ddl);
                s.execute("INSERT INTO cp (k, c, e) VALUES (1, 'ab', 'z')");
            }
            tandem = psql(psql, "127.0.0.1", server.port(), "tandem", "test", script);
            postgres = psql(psql, host, pgPort, "postgres", "postgres", script);
        }
        assertThat(tandem).contains("c|character(3)|||").contains("ab |x         |z");
        assertThat(tandem.lines().toList()).as("psql's output from Tandem and from PostgreSQL 15").isEqualTo(postgres.lines().toList());
    }

    private static String psql(String psql, String host, int port, String db, String user, java.nio.file.Path script) throws Exception {
        Process p = new ProcessBuilder(psql, "-h", host, "-p", Integer.toString(port), "-U", user, "-d", db, "-X", "-A", "-f", script.toString())
                .redirectErrorStream(true)
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("psql finished").isTrue();
        return out;
    }

    /** Each result column's type name, its precision (a char(n)'s length, from the type modifier) and the rows. */
    private static String described(Connection c, String q) {
        try (java.sql.PreparedStatement ps = c.prepareStatement(q); ResultSet rs = ps.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            List<String> types = new ArrayList<>();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                types.add(md.getColumnTypeName(i) + "(" + md.getPrecision(i) + ")");
            }
            return types + " " + PgAnswers.rows(rs, false);
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    private static String prepared(Connection c, String q, String value) {
        try (java.sql.PreparedStatement ps = c.prepareStatement(q)) {
            ps.setString(1, value);
            try (ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /** An array parameter as pgjdbc sends a {@code long[]} (in binary where the connection transfers int8[] in binary). */
    private static String arrayParameter(Connection c, String q) {
        try (java.sql.PreparedStatement ps = c.prepareStatement(q)) {
            ps.setObject(1, new long[] {1, 3, 7});
            try (ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }
}
