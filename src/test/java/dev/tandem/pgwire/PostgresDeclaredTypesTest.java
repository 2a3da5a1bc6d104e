package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.io.StringReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
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
 * Columns declared {@code integer}, {@code smallint}, {@code varchar(n)} and {@code numeric(p, s)}, written and
 * read by Tandem and by a real PostgreSQL 15 with the same statements: every statement has the same outcome
 * (the same rows, or the same SQLSTATE), through INSERT, UPDATE, defaults and COPY; the catalog
 * ({@code format_type}, {@code information_schema.columns}, pgjdbc's {@code getColumns}) describes the columns
 * alike. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresDeclaredTypesTest {

    private static final List<String> STATEMENTS = List.of(
            "CREATE TABLE dtx (k int PRIMARY KEY, s smallint, i integer, v varchar(3), cv character varying(5), n numeric(5, 2),"
                    + " p numeric(4), r numeric(3, -1), f numeric(3, 5), b bigint, dn numeric(4, 1) DEFAULT 1.25, dv varchar(2) DEFAULT 'a  ')",
            "INSERT INTO dtx (k, s, i, v, cv, n, p, r, f, b) VALUES (1, 32767, -2147483648, 'abc', 'héllo', 999.994, 1234.5, 1234, 0.001234, 1)",
            "INSERT INTO dtx (k, s, i, v, n, p) VALUES (2, -32768, 2147483647, 'a  ', -0.005, -9999.4)",
            "INSERT INTO dtx (k, v) VALUES (3, 'ab   ')",
            "INSERT INTO dtx (k) VALUES (2147483648)",
            "INSERT INTO dtx (k, s) VALUES (4, 32768)",
            "INSERT INTO dtx (k, i) VALUES (4, -2147483649)",
            "INSERT INTO dtx (k, v) VALUES (4, 'abcd')",
            "INSERT INTO dtx (k, cv) VALUES (4, 'héllo!')",
            "INSERT INTO dtx (k, n) VALUES (4, 999.995)",
            "INSERT INTO dtx (k, p) VALUES (4, 9999.5)",
            "INSERT INTO dtx (k, r) VALUES (4, 9995)",
            "INSERT INTO dtx (k, f) VALUES (4, 0.01)",
            "INSERT INTO dtx (k, n) VALUES (4, 12.345), (5, 1000)",
            "UPDATE dtx SET n = n / 3, i = i + 1 WHERE k = 1",
            "UPDATE dtx SET i = i + 1 WHERE k = 2",
            "UPDATE dtx SET s = s - 1 WHERE k = 2",
            "UPDATE dtx SET v = v || 'x' WHERE k = 3",
            "UPDATE dtx SET v = 'xyz', n = 0.125 WHERE k = 3",
            "SELECT k, s, i, v, cv, n, p, r, f, b, dn, dv FROM dtx ORDER BY k",
            "SELECT k FROM dtx WHERE n = 0.13 OR v = 'a  '",
            "SELECT sum(n), max(v), min(p) FROM dtx",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dtx'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT column_name, data_type, character_maximum_length, numeric_precision, numeric_precision_radix, numeric_scale"
                    + " FROM information_schema.columns WHERE table_name = 'dtx' ORDER BY ordinal_position",
            "CREATE TABLE dtbad (x numeric(0))",
            "CREATE TABLE dtbad (x numeric(1001))",
            "CREATE TABLE dtbad (x numeric(5, 1001))",
            "CREATE TABLE dtbad (x varchar(0))",
            "CREATE TABLE dtbad (x integer(3))",
            // integer and smallint arithmetic and casts overflow at their own ranges, as PostgreSQL's do
            "SELECT 2147483647 + 1", "SELECT 2147483647::int * 2", "SELECT -2147483648 / -1", "SELECT (-2147483647 - 1) / -1",
            "SELECT 100000 * 100000", "SELECT 100000::bigint * 100000", "SELECT 99999999999::int", "SELECT 40000::smallint",
            "SELECT 32767::int2 + 1::int2", "SELECT 1::int2 + 1::int2", "SELECT CAST(3000000000.5 AS integer)", "SELECT CAST(2147483647.4 AS integer)",
            "SELECT 2147483648", "SELECT CAST('12' AS int) + 1", "SELECT 7 / 2, 7 % 3, -7 / 2",
            "SELECT k, i + 1 FROM dtx WHERE k = 1", "SELECT k, i::int + 1 FROM dtx WHERE k = 2", "SELECT k, s::smallint * 2::smallint FROM dtx WHERE k = 2");

    /** Serial and identity columns: the values writes take, what RETURNING shows, clashes with values written explicitly. */
    private static final List<String> SERIALS = List.of(
            "CREATE TABLE dts (id serial PRIMARY KEY, v text)",
            "INSERT INTO dts (v) VALUES ('a'), ('b') RETURNING id, v",
            "INSERT INTO dts VALUES (DEFAULT, 'c') RETURNING id",
            "INSERT INTO dts (v) SELECT 'd' RETURNING id",
            "INSERT INTO dts (id, v) VALUES (2, 'dup')",
            "INSERT INTO dts (id, v) VALUES (10, 'explicit')",
            "INSERT INTO dts (v) VALUES ('e') RETURNING id",
            "INSERT INTO dts (id, v) VALUES (NULL, 'null')",
            "SELECT id, v FROM dts ORDER BY id",
            "CREATE TABLE dti (id bigint GENERATED BY DEFAULT AS IDENTITY, s smallserial, v text)",
            "INSERT INTO dti (v) VALUES ('x'), ('y') RETURNING id, s",
            "SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute WHERE attrelid = 'dts'::regclass AND attnum > 0"
                    + " ORDER BY attnum",
            "CREATE TABLE dtbad (id text GENERATED BY DEFAULT AS IDENTITY)",
            // defaults as the catalog shows them (psql's \\d, ORMs reflecting a table)
            "CREATE TABLE dtd (a bigint DEFAULT 0, b int DEFAULT -1, c text DEFAULT 'x', d varchar(5) DEFAULT 'ab', e boolean DEFAULT true,"
                    + " f timestamptz DEFAULT now(), g date DEFAULT current_date, h numeric DEFAULT 1.50, i double precision DEFAULT 2.5,"
                    + " j timestamp DEFAULT '2024-01-02 03:04:05', l text)",
            "SELECT a.attname, a.atthasdef, pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a LEFT JOIN pg_attrdef d"
                    + " ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = 'dtd'::regclass AND a.attnum > 0 ORDER BY a.attnum",
            "SELECT column_name, column_default FROM information_schema.columns WHERE table_name IN ('dtd', 'dts') ORDER BY table_name, ordinal_position");

    /** CHECK constraints: their names, which row each refuses (a write refused whole), NULL passing, the catalog's rows. */
    private static final List<String> CHECKS = List.of(
            "CREATE TABLE dtc (a int CHECK (a > 0) CHECK (a < 100), b int, c int, CHECK (a < b), CHECK (b > 0), CONSTRAINT named CHECK (c < 9),"
                    + " t text CHECK (t LIKE 'x%' AND length(t) < 4))",
            "INSERT INTO dtc VALUES (0, 1, 2, 'x')",
            "INSERT INTO dtc VALUES (5, 1, 2, 'x')",
            "INSERT INTO dtc VALUES (NULL, 1, 2, NULL)",
            "INSERT INTO dtc VALUES (1, 2, 3, 'xy'), (2, 3, 10, 'x')",
            "INSERT INTO dtc VALUES (1, 2, 3, 'xy'), (2, 3, 4, 'xyzw')",
            "INSERT INTO dtc VALUES (1, 2, 3, 'xy')",
            "UPDATE dtc SET c = 10 WHERE b = 2",
            "UPDATE dtc SET a = a + 1 WHERE b = 2",
            "UPDATE dtc SET a = a + 1 WHERE b = 2",
            "INSERT INTO dtc (a, b, c, t) SELECT a, b, c + 6, t FROM dtc WHERE b = 2",
            "SELECT * FROM dtc ORDER BY b",
            "SELECT conname, contype, conkey, pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'dtc'::regclass"
                    + " AND conname <> 'dtc_t_check' ORDER BY conname",
            "SELECT constraint_name, constraint_type FROM information_schema.table_constraints WHERE table_name = 'dtc' ORDER BY 1",
            "CREATE TABLE dtbad (a int CHECK (a > (SELECT 1)))",
            "CREATE TABLE dtbad (a int CHECK (nope > 0))",
            "CREATE TABLE dtbad (a int, CONSTRAINT k CHECK (a > 0), CONSTRAINT k CHECK (a < 5))");

    /**
     * Queries over {@code integer} and {@code smallint} columns, compared with their result columns' types (pgjdbc's
     * {@code getColumnTypeName} and {@code getColumnType}) and each value as pgjdbc reads it, in text and binary
     * formats: arithmetic overflows at the column's range, mixed with a {@code bigint} computes in {@code bigint},
     * aggregates take PostgreSQL's types, views keep their columns' types.
     */
    private static final List<String> TYPED = List.of(
            "CREATE TABLE dtn (k int PRIMARY KEY, i integer, s smallint, b bigint, t text)",
            "INSERT INTO dtn VALUES (1, 2147483647, 32767, 9223372036854775807, 'abc'), (2, -2147483648, -32768, 1, 'héllo'),"
                    + " (3, 5, 7, 10, 'x'), (4, NULL, NULL, NULL, NULL)",
            "SELECT k, i, s, b FROM dtn ORDER BY k",
            "SELECT i + 1 FROM dtn WHERE k = 1", "SELECT i - 1 FROM dtn WHERE k = 2", "SELECT -i FROM dtn WHERE k = 2",
            "SELECT i / -1 FROM dtn WHERE k = 2", "SELECT i * 2 FROM dtn WHERE k = 1", "SELECT i * 2 FROM dtn WHERE k = 3",
            "SELECT i + 1, i - 1, i * i, i / 2, i % 3 FROM dtn WHERE k = 3", "SELECT 2147483642 + i FROM dtn WHERE k = 3",
            "SELECT 2147483643 + i FROM dtn WHERE k = 3", "SELECT s + 1 FROM dtn WHERE k = 1", "SELECT s - 1 FROM dtn WHERE k = 2",
            "SELECT s * s, s + s, -s FROM dtn WHERE k = 3", "SELECT s * 10000 FROM dtn WHERE k = 3", "SELECT s * 1000::smallint FROM dtn WHERE k = 3",
            "SELECT s * 5000::smallint FROM dtn WHERE k = 3", "SELECT s + i FROM dtn WHERE k = 1", "SELECT s + i FROM dtn WHERE k = 3",
            "SELECT i + b, i * b, s + b FROM dtn WHERE k = 3", "SELECT i + 1::bigint, i::bigint * 2, s + 2147483648 FROM dtn WHERE k = 1",
            "SELECT i + 2.5, i * 2.5 FROM dtn WHERE k = 3", "SELECT i, s, b FROM dtn WHERE k = 4",
            "SELECT sum(i), sum(s), count(i), count(*), min(i), max(i), min(s), max(s) FROM dtn",
            "SELECT avg(i), avg(s) FROM dtn WHERE k = 3", "SELECT sum(i) / count(i), sum(s) / count(*) FROM dtn",
            "SELECT sum(i) / count(i) FROM dtn WHERE k >= 3", "SELECT sum(i)::double precision / count(i) FROM dtn", "SELECT s, sum(i), count(*) FROM dtn GROUP BY s ORDER BY s",
            "SELECT k, sum(i) OVER (ORDER BY k), max(s) OVER () FROM dtn ORDER BY k",
            "SELECT k FROM dtn WHERE i = 5", "SELECT k FROM dtn WHERE i = 2147483648", "SELECT k FROM dtn WHERE i < 3000000000 ORDER BY k",
            "SELECT k FROM dtn WHERE s = 7 AND i = 5", "SELECT k FROM dtn WHERE s = 40000", "SELECT k FROM dtn WHERE s < 40000 ORDER BY k",
            "SELECT k FROM dtn WHERE s = 7", "SELECT s + 1 FROM dtn WHERE k = 3", "SELECT k FROM dtn WHERE i = b ORDER BY k", "SELECT k FROM dtn WHERE k = 3",
            "SELECT a.k, c.k FROM dtn a JOIN dtn c ON a.i = c.b ORDER BY 1", "SELECT a.k, c.k FROM dtn a JOIN dtn c ON a.s = c.i ORDER BY 1",
            "SELECT i FROM dtn UNION SELECT b FROM dtn ORDER BY 1", "SELECT i FROM dtn UNION SELECT s FROM dtn ORDER BY 1",
            "SELECT CASE WHEN k = 3 THEN i ELSE s END FROM dtn ORDER BY k", "SELECT coalesce(i, s), coalesce(s, 0), greatest(i, s) FROM dtn ORDER BY k",
            "SELECT 1, 2147483648, 1::smallint, 1::int2 + 1, 1 + 1", "SELECT length(t), strpos(t, 'l'), position('b' IN t) FROM dtn ORDER BY k",
            "SELECT length(t) + 2147483647 FROM dtn WHERE k = 3", "SELECT lpad(t, s) FROM dtn WHERE k = 3",
            "SELECT i::text, s::text, i::numeric, i::double precision FROM dtn WHERE k = 2", "SELECT count(*) FROM dtn",
            "CREATE VIEW dtnv AS SELECT k, i, s, i + s AS si, i + b AS ib FROM dtn WHERE k >= 3",
            "SELECT * FROM dtnv ORDER BY k", "SELECT si + 1 FROM dtnv WHERE k = 3", "SELECT si + 2147483636 FROM dtnv WHERE k = 3",
            "SELECT sum(si), max(si) FROM dtnv",
            "CREATE VIEW dtnagg AS SELECT s, sum(i) AS total, count(*) AS n, min(i) AS lo FROM dtn GROUP BY s",
            "SELECT * FROM dtnagg ORDER BY s",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dtnv'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dtnagg'::regclass AND attnum > 0 ORDER BY attnum",
            "UPDATE dtn SET i = i + 1 WHERE k = 1", "UPDATE dtn SET i = i * 2, s = s + 1 WHERE k = 3", "SELECT k, i, s FROM dtn ORDER BY k",
            "SELECT * FROM dtnv ORDER BY k", "SELECT * FROM dtnagg ORDER BY s");

    @TempDir
    Path dir;

    @Test
    void declaredColumnTypesBehaveAsPostgresColumnsDo() throws Exception {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable")) {
            try (Statement p = pg.createStatement()) {
                p.execute("DROP VIEW IF EXISTS dtnv");
                p.execute("DROP VIEW IF EXISTS dtnagg");
                for (String table : List.of("dtx", "dtbad", "dts", "dti", "dtd", "dtc", "dtn")) {
                    p.execute("DROP TABLE IF EXISTS " + table);
                }
            }
            for (String sql : STATEMENTS) {
                compare(sql, outcome(pg, sql), outcome(td, sql), mismatches);
            }
            for (String copy : List.of("10\t7\tab\n11\t8\tabc \n", "12\t40000\tx\n", "13\t1\tabcd\n")) {
                String sql = "COPY dtx (k, s, v) FROM STDIN";
                compare(sql + " <" + copy.replace("\n", "|") + ">", copy(pg, sql, copy), copy(td, sql, copy), mismatches);
            }
            String after = "SELECT k, s, v FROM dtx WHERE k >= 10 ORDER BY k";
            compare(after, outcome(pg, after), outcome(td, after), mismatches);
            compare("getColumns", columns(pg.getMetaData()), columns(td.getMetaData()), mismatches);
            for (String sql : SERIALS) {
                compare(sql, outcome(pg, sql), outcome(td, sql), mismatches);
            }
            for (String sql : CHECKS) {
                compare(sql, outcome(pg, sql), outcome(td, sql), mismatches);
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    @Test
    void integerColumnsAreTypedAsPostgresTypesThem() throws Exception {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        // prepareThreshold=-1: every statement is prepared and pgjdbc reads int2, int4 and int8 results in binary
        String binary = "&prepareThreshold=-1&binaryTransfer=true";
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Connection pgBinary = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable" + binary);
                Connection tdBinary = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable"
                        + binary)) {
            try (Statement p = pg.createStatement()) {
                p.execute("DROP VIEW IF EXISTS dtnv");
                p.execute("DROP VIEW IF EXISTS dtnagg");
                p.execute("DROP TABLE IF EXISTS dtn");
            }
            for (String sql : TYPED) {
                // (the catalog's name columns are text here: their rows alone are compared)
                boolean catalog = sql.contains("pg_attribute");
                compare(sql, catalog ? outcome(pg, sql) : typedOutcome(pg, sql), catalog ? outcome(td, sql) : typedOutcome(td, sql), mismatches);
                if (sql.startsWith("SELECT") && !catalog) {
                    compare(sql + " (binary)", typedOutcome(pgBinary, sql), typedOutcome(tdBinary, sql), mismatches);
                }
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    private static void compare(String what, String expected, String actual, List<String> mismatches) {
        if (!expected.equals(actual)) {
            mismatches.add(what + "\n  PostgreSQL: " + expected + "\n  Tandem:     " + actual);
        }
    }

    /** The statement's rows as text (or its update count), or its SQLSTATE. */
    private static String outcome(Connection c, String sql) {
        try (Statement s = c.createStatement()) {
            if (!s.execute(sql)) {
                return "OK " + s.getUpdateCount();
            }
            return rows(s.getResultSet());
        } catch (SQLException e) {
            // the constraint a violation names, as PostgreSQL names it
            String constraint = e instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null
                    ? p.getServerErrorMessage().getConstraint() : null;
            return "ERROR " + e.getSQLState() + (constraint == null ? "" : " " + constraint);
        }
    }

    /** {@link #outcome}, with the result columns' types and each value as {@code getObject} reads it (its class). */
    private static String typedOutcome(Connection c, String sql) {
        try (java.sql.PreparedStatement s = c.prepareStatement(sql)) {
            if (!s.execute()) {
                return "OK " + s.getUpdateCount();
            }
            ResultSet r = s.getResultSet();
            java.sql.ResultSetMetaData md = r.getMetaData();
            StringBuilder b = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                b.append(md.getColumnTypeName(i)).append('/').append(md.getColumnType(i)).append(' ');
            }
            while (r.next()) {
                b.append('[');
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    Object v = r.getObject(i);
                    b.append(i > 1 ? ", " : "").append(v == null ? "null" : v.getClass().getSimpleName() + " " + v);
                }
                b.append(']');
            }
            return b.toString();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    private static String copy(Connection c, String sql, String data) {
        try {
            return "OK " + c.unwrap(PGConnection.class).getCopyAPI().copyIn(sql, new StringReader(data));
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String columns(DatabaseMetaData md) throws SQLException {
        try (ResultSet r = md.getColumns(null, "public", "dtx", null)) {
            StringBuilder b = new StringBuilder();
            while (r.next()) {
                b.append(r.getString("COLUMN_NAME")).append(' ').append(r.getString("TYPE_NAME")).append(' ').append(r.getInt("DATA_TYPE"))
                        .append(' ').append(r.getInt("COLUMN_SIZE")).append(' ').append(r.getInt("DECIMAL_DIGITS")).append("; ");
            }
            return b.toString();
        }
    }

    private static String rows(ResultSet r) throws SQLException {
        StringBuilder b = new StringBuilder();
        int n = r.getMetaData().getColumnCount();
        while (r.next()) {
            b.append('[');
            for (int i = 1; i <= n; i++) {
                b.append(i > 1 ? ", " : "").append(r.getString(i));
            }
            b.append(']');
        }
        return b.toString();
    }
}
