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

/**
 * Array columns of {@code character varying} and {@code character varying(n)}: writes by literals, constructors, array
 * functions, {@code COPY} and pgjdbc's {@code setArray} (each element held to the length, {@code 22001}), reads in the text and
 * binary formats, {@code ANY}, subscripts, {@code unnest}, the array functions, the catalog's description, and an indexed view
 * over such a column maintained through random writes; answered by Tandem and by a real PostgreSQL 15 alike. Skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresArrayColumnsTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE av (k bigint PRIMARY KEY, v varchar(3)[], w varchar[], x character varying(4) ARRAY, t text)",
            "INSERT INTO av VALUES (1, '{ab,\"c  \",\"   \",NULL}', '{x,\"y \",\"\"}', '{abcd}', 'ab'), (2, ARRAY['a', 'b'], ARRAY['z'], '{}', 'a'),"
                    + " (3, NULL, NULL, NULL, NULL), (4, '{\"abc   \"}', '{\"a,b\",\"q\\\"r\",NULL}', ARRAY['ab  '], 'c')",
            "INSERT INTO av (k, v) VALUES (10, '{abcd}')",
            "INSERT INTO av (k, v) VALUES (10, ARRAY['abcd'])",
            "INSERT INTO av (k, v) VALUES (10, '{\"abcd \"}')",
            "INSERT INTO av (k, x) VALUES (11, '{\"abcd  \",\"e    \"}')",
            "UPDATE av SET v = array_append(v, 'xyzw') WHERE k = 2",
            "UPDATE av SET v = array_append(v, 'xy') WHERE k = 2",
            "UPDATE av SET w = array_prepend('pre', w) WHERE k = 1",
            "UPDATE av SET x = x || ARRAY['longer'] WHERE k = 11",
            "UPDATE av SET x = x || ARRAY['ok'] WHERE k = 11",
            "DELETE FROM av WHERE k = 3",
            "INSERT INTO av (k) VALUES (3)",
            "CREATE VIEW avw AS SELECT k, v, w, x FROM av WHERE k < 5",
            "CREATE TABLE avc AS SELECT k, v, w FROM av");

    static final List<String> QUERIES = List.of(
            "SELECT * FROM av ORDER BY k",
            "SELECT k, v, w FROM av WHERE k < 3 ORDER BY k",
            "SELECT k, v[1] || '|', v[2] || '|', v[9] IS NULL, array_length(v, 1)::bigint, cardinality(w)::bigint FROM av ORDER BY k",
            "SELECT k, array_to_string(v, ','), array_to_string(w, ',', '*'), array_to_string(x, '-') FROM av ORDER BY k",
            "SELECT k FROM av WHERE 'ab'::text = ANY(v) ORDER BY k",
            "SELECT k FROM av WHERE t = ANY(v) ORDER BY k",
            "SELECT k, 'c  '::text = ANY(v), 'c'::text = ANY(v), 'zz'::text <> ALL(w) FROM av ORDER BY k",
            "SELECT k, u || '|' FROM av, unnest(v) AS u ORDER BY k, 2",
            "SELECT v, count(*) FROM av GROUP BY v ORDER BY v",
            "SELECT DISTINCT w FROM av ORDER BY w",
            "SELECT k, array_append(v, 'q')::text[], (v || w)::text[] FROM av ORDER BY k",
            "SELECT k, v = '{ab,\"c  \",\"   \",NULL}'::varchar[], w @> '{x}'::varchar[], v::text[] = w::text[] FROM av ORDER BY k",
            "SELECT k FROM av WHERE x IS NOT NULL AND cardinality(x) > 0 ORDER BY k",
            "SELECT * FROM avw ORDER BY k",
            "SELECT * FROM avc ORDER BY k");

    private static final List<String> CATALOG = List.of(
            "SELECT attname, format_type(atttypid, atttypmod), atttypid, atttypmod, attndims FROM pg_attribute"
                    + " WHERE attrelid = 'av'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_name = 'av' ORDER BY ordinal_position",
            "SELECT format_type(1015, 7), format_type(1015, -1)",
            "SELECT attname, format_type(atttypid, atttypmod), attndims FROM pg_attribute WHERE attrelid = 'avw'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'avc'::regclass AND attnum > 0 ORDER BY attnum");

    private static final List<String> VIEWS = List.of(
            "avv_rows AS SELECT k, v, array_to_string(v, ',') AS s, cardinality(v) AS n FROM am WHERE 'b'::text = ANY(v) OR v IS NULL",
            "avv_by AS SELECT v, count(*) AS n, max(k) AS kmax FROM am GROUP BY v",
            "avv_elems AS SELECT u::text AS u, count(*) AS n FROM am, unnest(v) AS u GROUP BY u");

    @TempDir
    Path dir;

    @Test
    void varcharArrayColumnsAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "1015,1009,1043,INT8")) {
            try (Statement p = systems.pg().createStatement()) {
                p.execute("DROP VIEW IF EXISTS avw");
                p.execute("DROP TABLE IF EXISTS avc");
                p.execute("DROP TABLE IF EXISTS av");
            }
            for (String sql : SETUP) {
                PgAnswers.compare(sql, PgAnswers.update(systems.pg(), sql), PgAnswers.update(systems.td(), sql), "write", mismatches);
                compared++;
            }
            for (String[] copy : List.of(new String[] {"COPY av (k, v, w) FROM STDIN", "20\t{ab,\"c d\"}\t{\"x  \",NULL}\n21\t\\N\t{}\n"},
                    new String[] {"COPY av (k, v) FROM STDIN", "22\t{abcd}\n"}, new String[] {"COPY av (k, x) FROM STDIN", "23\t{\"abcd   \"}\n"})) {
                PgAnswers.compare(copy[0], copy(systems.pg(), copy[0], copy[1]), copy(systems.td(), copy[0], copy[1]), "copy", mismatches);
                compared++;
            }
            for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                String format = pair[0] == systems.pg() ? "text" : "binary";
                int k = pair[0] == systems.pg() ? 30 : 31;
                PgAnswers.compare("setArray varchar", setArrays(pair[0], k, "p q", "abc  "), setArrays(pair[1], k, "p q", "abc  "), format, mismatches);
                PgAnswers.compare("setArray varchar too long", setArrays(pair[0], k + 10, "abcd", "x"), setArrays(pair[1], k + 10, "abcd", "x"), format,
                        mismatches);
                String q = "SELECT k FROM av WHERE ?::text = ANY(v) ORDER BY k";
                PgAnswers.compare(q, anyParameter(pair[0], q), anyParameter(pair[1], q), format, mismatches);
                compared += 3;
            }
            systems.compareAll(QUERIES, mismatches);
            compared += 2 * QUERIES.size();
            for (String q : CATALOG) {
                // compared by value: the catalog's own columns are typed text where PostgreSQL's are name, oid, sql_identifier...
                String expected = PgAnswers.answer(systems.pg(), q, false);
                String got = PgAnswers.answer(systems.td(), q, false);
                PgAnswers.compare(q, expected.substring(expected.indexOf("] ") + 2), got.substring(got.indexOf("] ") + 2), "catalog", mismatches);
                compared++;
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL in %d comparisons:\n%s", mismatches.size(), compared,
                String.join("\n", mismatches)).isEmpty();
    }

    /** Indexed views over a {@code varchar(3)[]} column, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfVarcharArraysAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        java.util.Random random = new java.util.Random(67);
        List<String> values = List.of("'{a,b}'", "'{b}'", "'{}'", "NULL", "ARRAY['ab ', 'c']", "'{NULL,b}'", "'{\"a b\"}'", "'{abc   }'");
        List<String> mismatches = new ArrayList<>();
        int withRows;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable")) {
            withRows = PgAnswers.maintainedViews(pg, td, "am (k bigint, v varchar(3)[])", VIEWS,
                    name -> name.equals("avv_by") ? "n" : name.equals("avv_elems") ? "n" : "k", 30,
                    PgAnswers.randomWrites(random, "am", "k", () -> values.get(random.nextInt(values.size())), List.of("'a'::text = ANY(v)"),
                            () -> List.of("v = array_append(v, 'b')", "v = '{c}'", "v = NULL", "v = array_prepend('x  ', v)"),
                            List.of("cardinality(v) > 1", "v IS NULL")), mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
        assertThat(withRows).isGreaterThan(40);
    }

    private static String copy(Connection c, String sql, String data) {
        try {
            long n = new org.postgresql.copy.CopyManager(c.unwrap(org.postgresql.core.BaseConnection.class))
                    .copyIn(sql, new java.io.StringReader(data));
            return "OK " + n;
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        } catch (java.io.IOException e) {
            return "ERROR " + e;
        }
    }

    /** A row written with pgjdbc's {@code setArray} of {@code varchar} arrays, read back with {@code getArray}. */
    private static String setArrays(Connection c, int k, String first, String second) {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO av (k, v, w) VALUES (?, ?, ?)")) {
            ps.setLong(1, k);
            ps.setArray(2, c.createArrayOf("varchar", new Object[] {first, null, second}));
            ps.setArray(3, c.createArrayOf("text", new Object[] {second}));
            ps.executeUpdate();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT v, w FROM av WHERE k = ?")) {
            ps.setLong(1, k);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    for (int i = 1; i <= 2; i++) {
                        java.sql.Array a = rs.getArray(i);
                        out.add(rs.getMetaData().getColumnTypeName(i) + " " + (a == null ? "NULL" : java.util.Arrays.toString((Object[]) a.getArray())));
                    }
                }
                return out.toString();
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /** {@code q} with a text parameter compared with a {@code varchar(3)[]} column's elements. */
    private static String anyParameter(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            ps.setString(1, "b");
            try (ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }
}
