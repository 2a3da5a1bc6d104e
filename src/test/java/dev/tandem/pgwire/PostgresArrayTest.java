package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL's one-dimensional arrays as values: constructors, text input and its errors, text output and its quoting,
 * {@code ANY}/{@code ALL} with NULLs, subscripts, the array functions and operators, jsonb's {@code ?|}/{@code ?&}, and
 * pgjdbc's {@code getArray}/{@code setArray}, answered by Tandem and by a real PostgreSQL 15 alike over the text and
 * binary formats. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresArrayTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE ax (k bigint PRIMARY KEY, n bigint, s text, j jsonb)",
            "INSERT INTO ax VALUES (1, 10, 'a', '{\"a\": 1, \"b\": 2}'), (2, 20, 'b c', '{\"c\": 3}'), (3, NULL, NULL, '[\"a\", \"x\"]'),"
                    + " (4, 40, '', NULL), (5, 10, 'NULL', '\"a\"')");

    static final List<String> QUERIES = List.of(
            // constructors and output
            "SELECT ARRAY[1::bigint, 2, 3]",
            "SELECT ARRAY['a', 'b c', NULL, '', 'NULL', 'null', 'x,y', 'q\"r', 'back\\slash', '{}', ' lead', 'tab\t']::text[]",
            "SELECT ARRAY[true, false, NULL]",
            "SELECT ARRAY[1.5::float8, 1e20, 0.0001], ARRAY[2.25]",
            "SELECT ARRAY[DATE '2024-01-02'], ARRAY['2024-01-02 03:04:05.5'::timestamp], ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]",
            "SELECT ARRAY[n, k] FROM ax ORDER BY k",
            "SELECT ARRAY[s] FROM ax ORDER BY k",
            // text input
            "SELECT '{a,\"b c\",NULL}'::text[]",
            "SELECT '{1,2,NULL}'::bigint[], '{}'::bigint[], array_to_string(' { 1 , 2 } '::integer[], ',')",
            "SELECT '{\"NULL\",null,\"\",\"a\\\\\"b\"}'::text[]",
            "SELECT '{t,f,true,NULL}'::boolean[]",
            "SELECT '{1.50,2}'::numeric[], '{1.5,NaN}'::float8[]",
            "SELECT '{a,b'::text[]",
            "SELECT '{3000000000}'::integer[]",
            "SELECT '{1,x}'::bigint[]",
            "SELECT 'a'::text[]",
            "SELECT '{a,{b}}'::text[]",
            "SELECT '{\"a\"b}'::text[]",
            // ANY / ALL and their NULLs
            "SELECT k FROM ax WHERE n = ANY(ARRAY[10::bigint, 40]) ORDER BY k",
            "SELECT k FROM ax WHERE n = ANY('{10,40}'::bigint[]) ORDER BY k",
            "SELECT k FROM ax WHERE s = ANY('{a,\"b c\"}'::text[]) ORDER BY k",
            "SELECT k, n = ANY('{10,NULL}'::bigint[]), n <> ALL('{10,NULL}'::bigint[]), n <> ALL('{10,20}'::bigint[]) FROM ax ORDER BY k",
            "SELECT k, n = ANY('{}'::bigint[]), n <> ALL('{}'::bigint[]), n > ALL('{5,15}'::bigint[]), n < SOME('{15,25}'::bigint[]) FROM ax ORDER BY k",
            "SELECT k FROM ax WHERE NOT (n = ANY('{10,NULL}'::bigint[])) ORDER BY k",
            "SELECT k FROM ax WHERE n <> ALL('{10,NULL}'::bigint[]) ORDER BY k",
            "SELECT 1::bigint = ANY(NULL::bigint[]), NULL::bigint = ANY('{1}'::bigint[]), 2::bigint >= ALL('{1,2}'::bigint[])",
            // subscripts and functions
            "SELECT ('{a,b,c}'::text[])[1], ('{a,b,c}'::text[])[3], ('{a,b,c}'::text[])[4], ('{a,b,c}'::text[])[0]",
            "SELECT k, (ARRAY[n, k, 7::bigint])[2] FROM ax ORDER BY k",
            "SELECT array_length('{1,2,3}'::bigint[], 1)::bigint, array_length('{}'::bigint[], 1)::bigint, array_length('{1}'::bigint[], 2)::bigint",
            "SELECT cardinality('{1,2,3}'::bigint[])::bigint, cardinality('{}'::text[])::bigint",
            "SELECT array_to_string('{a,NULL,b c}'::text[], ','), array_to_string('{a,NULL,b}'::text[], '-', '*'), array_to_string('{1,2}'::bigint[], '')",
            "SELECT array_to_string('{t,f}'::boolean[], ',')",
            // concatenation, containment
            "SELECT '{1,2}'::bigint[] || '{3}'::bigint[], '{1,2}'::bigint[] || 3::bigint, 0::bigint || '{1,2}'::bigint[]",
            "SELECT '{a}'::text[] || '{b,NULL}'::text[]",
            "SELECT array_cat('{1}'::bigint[], '{2}'::bigint[]), array_append('{1}'::bigint[], 2::bigint), array_prepend(0::bigint, '{1}'::bigint[])",
            "SELECT '{1,2,3}'::bigint[] @> '{1,3}'::bigint[], '{1,2}'::bigint[] @> '{4}'::bigint[], '{1}'::bigint[] <@ '{1,2}'::bigint[]",
            "SELECT '{1,2}'::bigint[] && '{2,3}'::bigint[], '{1,2}'::bigint[] && '{3}'::bigint[], '{1,NULL}'::bigint[] @> '{NULL}'::bigint[]",
            // comparisons, order, grouping
            "SELECT '{1,2}'::bigint[] = '{1,2}'::bigint[], '{1,2}'::bigint[] < '{1,3}'::bigint[], '{1}'::bigint[] < '{1,0}'::bigint[],"
                    + " '{1,NULL}'::bigint[] = '{1,NULL}'::bigint[], '{NULL}'::bigint[] > '{5}'::bigint[]",
            "SELECT ARRAY[n] AS a, count(*) FROM ax GROUP BY ARRAY[n] ORDER BY a",
            "SELECT DISTINCT ARRAY[n] FROM ax ORDER BY 1",
            // casts
            "SELECT '{1,2}'::text[]::bigint[], '{1,2}'::bigint[]::text[], '{1.5}'::numeric[]::bigint[]",
            "SELECT CAST('{1,2}' AS bigint[]), CAST(ARRAY['3'] AS bigint[])",
            // array_agg: NULLs kept, ordered by its value, DISTINCT sorted, NULL over no rows
            "SELECT array_agg(n ORDER BY n), array_agg(s ORDER BY s DESC), array_agg(k ORDER BY k DESC) FROM ax",
            "SELECT n, array_agg(k ORDER BY k), array_agg(s ORDER BY s ASC NULLS LAST) FROM ax GROUP BY n ORDER BY n",
            "SELECT array_agg(DISTINCT n), array_agg(DISTINCT s), array_agg(DISTINCT s ORDER BY s DESC) FROM ax",
            "SELECT array_agg(k ORDER BY k), count(*) FROM ax WHERE k > 100",
            "SELECT n, array_agg(s ORDER BY s) FROM ax WHERE k > 100 GROUP BY n",
            "SELECT array_agg(n + k ORDER BY n + k) FROM ax",
            "SELECT array_agg(n ORDER BY n DESC NULLS FIRST) FROM ax WHERE k < 4",
            "SELECT array_agg(b ORDER BY b), array_agg(b ORDER BY b DESC) FROM (VALUES (true), (false), (NULL::boolean), (true)) AS t(b)",
            "SELECT array_agg(x ORDER BY x) FROM (SELECT ('{1.5,NULL,-2e30,0.1,0}'::float8[])[k] AS x FROM ax) AS t",
            "SELECT array_agg(x ORDER BY x DESC) FROM (SELECT ('{1.50,2,NULL,-0.001,0}'::numeric[])[k] AS x FROM ax) AS t",
            "SELECT array_agg(d ORDER BY d) FROM (VALUES (DATE '2024-01-02'), (DATE '2023-05-06'), (NULL::date)) AS t(d)",
            "SELECT array_agg(ts ORDER BY ts) FROM (VALUES ('2024-01-02 03:04:05.5'::timestamp), (NULL::timestamp), ('1999-12-31 23:59:59'::timestamp)) AS t(ts)",
            "SELECT array_agg(ts ORDER BY ts DESC) FROM (VALUES ('2024-01-02 03:04:05+02'::timestamptz), ('2024-01-02 00:00:00+00'::timestamptz)) AS t(ts)",
            "SELECT array_agg(u ORDER BY u) FROM (VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid), (NULL::uuid),"
                    + " ('00000000-0000-0000-0000-000000000001'::uuid)) AS t(u)",
            "SELECT array_to_string(array_agg(s ORDER BY s), ',', '*'), cardinality(array_agg(n ORDER BY n))::bigint FROM ax",
            // refusals PostgreSQL shares
            "SELECT k FROM ax WHERE n = ANY(5)",
            "SELECT ARRAY[1::bigint] = ARRAY['a']");

    /** jsonb's {@code ?|} and {@code ?&}, compared as simple statements only (a prepared statement's {@code ?} is pgjdbc's parameter). */
    static final List<String> SIMPLE = List.of(
            "SELECT k, j ?| '{a,c}'::text[], j ?& '{a,b}'::text[], j ?| '{}'::text[], j ?& '{}'::text[] FROM ax ORDER BY k",
            "SELECT k FROM ax WHERE j ?| ARRAY['a', 'z'] ORDER BY k",
            "SELECT k FROM ax WHERE j ?& ARRAY['a', 'x'] ORDER BY k",
            "SELECT k FROM ax WHERE j ?| '{a,NULL}'::text[] ORDER BY k");

    @TempDir
    Path dir;

    @Test
    void arraysAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "1000,1016,1007,1009,1022,1231,1182,1115,2951")) {
            Connection pg = systems.pg();
            Connection td = systems.td();
            try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
                p.execute("DROP TABLE IF EXISTS ax");
                for (String sql : SETUP) {
                    p.execute(sql);
                    t.execute(sql);
                }
            }
            systems.compareAll(QUERIES, mismatches);
            for (String q : SIMPLE) {
                PgAnswers.compare(q, PgAnswers.answer(pg, q, false), PgAnswers.answer(td, q, false), "text", mismatches);
            }
            for (String q : SIMPLE) {
                PgAnswers.compare(q, PgAnswers.answer(pg, q, false), PgAnswers.answer(td, q, false), "text", mismatches);
            }
            for (String q : QUERIES) {
                try (Statement s = td.createStatement(); ResultSet rs = s.executeQuery(q)) {
                    rs.next();
                } catch (SQLException e) {
                    System.out.println("DEBUG " + q + " -> " + e.getSQLState() + " " + e.getMessage());
                }
            }
            for (Connection[] pair : List.of(new Connection[] {pg, td}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                String format = pair[0] == pg ? "text" : "binary";
                PgAnswers.compare("getArray", getArray(pair[0]), getArray(pair[1]), format, mismatches);
                PgAnswers.compare("setArray bigint", setArray(pair[0], "bigint", new Object[] {10L, 40L, null}), setArray(pair[1], "bigint",
                        new Object[] {10L, 40L, null}), format, mismatches);
                PgAnswers.compare("setArray int8", setArray(pair[0], "int8", new Object[] {}), setArray(pair[1], "int8", new Object[] {}), format,
                        mismatches);
                PgAnswers.compare("setArray text", textParameter(pair[0]), textParameter(pair[1]), format, mismatches);
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** A table with array columns: written by literals, constructors, functions and pgjdbc's {@code setArray}, read and described. */
    private static final List<String> ARRAY_COLUMNS = List.of(
            "CREATE TABLE acol (id bigint, tags text[], ns bigint[], fs double precision[], bs boolean ARRAY, ds date[], ts timestamp[3],"
                    + " tz timestamptz[], us uuid[], xs numeric[])",
            "INSERT INTO acol VALUES (1, '{a,\"b c\",NULL,\"\"}', '{1,2,NULL}', '{1.5,-0.25,1e20}', '{t,f,NULL}', '{2024-01-02}',"
                    + " '{\"2024-01-02 03:04:05.5\"}', '{\"2024-01-02 03:04:05+02\"}', '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}', '{1.50,2}')",
            "INSERT INTO acol (id, tags, ns) VALUES (2, ARRAY['x', 'y'], ARRAY[3::bigint, 4]), (3, '{}', NULL), (4, NULL, '{}')",
            "UPDATE acol SET tags = array_append(tags, 'z') WHERE id = 2",
            "UPDATE acol SET ns = '{7,8}', xs = '{-0.001}'::numeric[] WHERE id = 3",
            "UPDATE acol SET tags = tags || '{q}'::text[] WHERE id = 1",
            "DELETE FROM acol WHERE id = 4",
            "INSERT INTO acol (id, tags) VALUES (5, NULL)");

    private static final List<String> ARRAY_COLUMN_QUERIES = List.of(
            "SELECT * FROM acol ORDER BY id",
            "SELECT id FROM acol WHERE 'x'::text = ANY(tags) ORDER BY id",
            "SELECT id, id = ANY(ns), id <> ALL(ns) FROM acol ORDER BY id",
            "SELECT id, tags[1], array_length(ns, 1)::bigint, cardinality(tags)::bigint, ns[2] FROM acol ORDER BY id",
            "SELECT tags, count(*) FROM acol GROUP BY tags ORDER BY tags",
            "SELECT id FROM acol WHERE ns @> '{1}'::bigint[] OR tags && '{z}'::text[] ORDER BY id",
            "SELECT id, array_to_string(tags, ',', '*') FROM acol ORDER BY id",
            "SELECT id, tags = '{x,y,z}'::text[] FROM acol ORDER BY id",
            "SELECT array_agg(id ORDER BY id DESC), array_agg(tags[1] ORDER BY tags[1]) FROM acol");

    /** The catalog's description of the array columns, compared by value (the catalog's own columns are typed text, PostgreSQL's name). */
    private static final List<String> ARRAY_COLUMN_CATALOG = List.of(
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'acol'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_name = 'acol' ORDER BY ordinal_position");

    @Test
    void arrayColumnsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "1000,1016,1007,1009,1022,1231,1182,1115,1185,2951", (systems, mismatches) -> {
            Connection pg = systems.pg();
            Connection td = systems.td();
            systems.dropFromPostgres("TABLE acol");
            int compared = systems.compareWrites(ARRAY_COLUMNS, mismatches);
            for (Connection[] pair : List.of(new Connection[] {pg, td}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                int id = pair[0] == pg ? 10 : 11;
                PgAnswers.compare("setArray insert", setArrays(pair[0], id), setArrays(pair[1], id), pair[0] == pg ? "text" : "binary", mismatches);
                compared++;
            }
            compared += systems.compareAll(ARRAY_COLUMN_QUERIES, mismatches);
            compared += systems.compareCatalog(ARRAY_COLUMN_CATALOG, mismatches);
            for (String q : List.of("INSERT INTO acol (id, ns) VALUES (20, ARRAY['a'])", "INSERT INTO acol (id, ns) VALUES (20, '{x}')",
                    "INSERT INTO acol (id, tags) VALUES (20, '{{a}}')", "INSERT INTO acol (id, tags) VALUES (20, '{a')")) {
                String expected = PgAnswers.update(pg, q);
                String got = PgAnswers.update(td, q);
                if (!got.equals(expected) && !got.equals("ERROR 0A000")) {
                    mismatches.add("[write] " + q + "\n  PostgreSQL: " + expected + "\n  Tandem:     " + got);
                }
                compared++;
            }
            return compared;
        });
    }

    /** A table with {@code integer[]} and {@code smallint[]} columns, and {@code array_agg} of integers: PostgreSQL's int4[] and int2[]. */
    private static final List<String> INTEGER_ARRAYS = List.of(
            "CREATE TABLE aint (id bigint, i4 integer[], i2 smallint[], n int, m smallint)",
            "INSERT INTO aint VALUES (1, '{1,2,NULL}', '{3,-4}', 5, 1), (2, ARRAY[7, 8], '{}', 6, 2), (3, NULL, NULL, NULL, NULL),"
                    + " (4, '{2147483647,-2147483648}', '{32767}', 7, -3)",
            "UPDATE aint SET i4 = array_append(i4, 9) WHERE id = 2",
            "INSERT INTO aint (id, i4) VALUES (9, '{2147483648}')",
            "INSERT INTO aint (id, i2) VALUES (9, '{40000}')",
            "INSERT INTO aint (id, i2) VALUES (9, ARRAY[1, 100000])");

    private static final List<String> INTEGER_ARRAY_QUERIES = List.of(
            "SELECT * FROM aint ORDER BY id",
            "SELECT id, i4[1], i2[2], i4[3] FROM aint ORDER BY id",
            "SELECT id, i4[1] + 1 FROM aint WHERE id < 4 ORDER BY id",
            "SELECT id, i4[1] + 1 FROM aint ORDER BY id",
            "SELECT id, n = ANY(i4), m <> ALL(i2) FROM aint ORDER BY id",
            "SELECT array_agg(n ORDER BY n), array_agg(m ORDER BY m DESC), array_agg(DISTINCT n) FROM aint",
            "SELECT n % 2, array_agg(m ORDER BY m) FROM aint GROUP BY n % 2 ORDER BY 1",
            "SELECT i2, count(*) FROM aint GROUP BY i2 ORDER BY i2",
            "SELECT id, array_length(i4, 1)::bigint, cardinality(i2)::bigint, array_to_string(i4, ',', '*') FROM aint ORDER BY id",
            "SELECT id, i4 = '{1,2,NULL}'::integer[], i4 @> '{2}'::integer[] FROM aint ORDER BY id",
            "SELECT '{1,2}'::integer[], '{3}'::smallint[], '{2147483648}'::integer[]");

    private static final List<String> INTEGER_ARRAY_CATALOG = List.of(
            "SELECT attname, format_type(atttypid, atttypmod), atttypid, attndims FROM pg_attribute WHERE attrelid = 'aint'::regclass AND attnum > 0"
                    + " ORDER BY attnum",
            "SELECT column_name, data_type, udt_name FROM information_schema.columns WHERE table_name = 'aint' ORDER BY ordinal_position");

    @Test
    void integerArrayColumnsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "1016,1007,1005,INT4,INT2", (systems, mismatches) -> {
            systems.dropFromPostgres("TABLE aint");
            int compared = systems.compareWrites(INTEGER_ARRAYS, mismatches);
            compared += systems.compareAll(INTEGER_ARRAY_QUERIES, mismatches);
            compared += systems.compareCatalog(INTEGER_ARRAY_CATALOG, mismatches);
            for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                String format = pair[0] == systems.pg() ? "text" : "binary";
                int id = pair[0] == systems.pg() ? 20 : 21;
                PgAnswers.compare("setArray integer", integerArrays(pair[0], id), integerArrays(pair[1], id), format, mismatches);
                compared++;
            }
            return compared;
        });
    }

    /** A row written with pgjdbc's {@code setArray} of integer and smallint arrays, read back with {@code getArray}. */
    private static String integerArrays(Connection c, int id) {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO aint (id, i4, i2) VALUES (?, ?, ?)")) {
            ps.setLong(1, id);
            ps.setArray(2, c.createArrayOf("integer", new Object[] {5, null, -7}));
            ps.setArray(3, c.createArrayOf("smallint", new Object[] {(short) 2}));
            ps.executeUpdate();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT i4, i2 FROM aint WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return arrays(rs, 2);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /** A row written with pgjdbc's {@code setArray} of text and bigint arrays, read back with {@code getArray}. */
    private static String setArrays(Connection c, int id) {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO acol (id, tags, ns) VALUES (?, ?, ?)")) {
            ps.setLong(1, id);
            ps.setArray(2, c.createArrayOf("text", new Object[] {"p q", null, "r"}));
            ps.setArray(3, c.createArrayOf("bigint", new Object[] {5L, null}));
            ps.executeUpdate();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT tags, ns FROM acol WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return arrays(rs, 2);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /** What Tandem does not do with arrays is refused with its SQLSTATE, never answered otherwise (no PostgreSQL needed). */
    @Test
    void refusesWhatItDoesNotDo() throws SQLException {
        List<String[]> cases = List.of(
                new String[] {"SELECT array_agg(n ORDER BY k) FROM ax", "0A000"},
                new String[] {"SELECT array_agg(n ORDER BY n NULLS FIRST) FROM ax", "0A000"},
                new String[] {"SELECT array_agg(n) FILTER (WHERE k > 1) FROM ax", "0A000"},
                new String[] {"SELECT array_agg(j) FROM ax", "0A000"},
                new String[] {"SELECT array_agg(ARRAY[n]) FROM ax", "0A000"},
                new String[] {"SELECT array_agg(DISTINCT n::numeric) FROM ax", "0A000"},
                new String[] {"SELECT max(ARRAY[n]) FROM ax", "0A000"},
                new String[] {"CREATE TABLE at (tags real[])", "0A000"},
                new String[] {"CREATE TABLE at (tags bpchar[])", "0A000"},
                new String[] {"CREATE TABLE at (tags timestamp(3)[])", "0A000"},
                new String[] {"CREATE TABLE at (tags text[][])", "0A000"},
                new String[] {"CREATE TABLE at (tags text[] PRIMARY KEY)", "0A000"},
                new String[] {"CREATE TABLE at (tags text[] DEFAULT '{}')", "0A000"},
                new String[] {"CREATE TABLE at (tags interval[])", "0A000"},
                new String[] {"SELECT ARRAY[1.5, 2.25]", "0A000"},
                new String[] {"SELECT '{{1,2}}'::bigint[]", "0A000"},
                new String[] {"SELECT ARRAY[n]::text FROM ax", "0A000"},
                new String[] {"SELECT k FROM ax WHERE n = ANY('{1}')", "0A000"},
                new String[] {"SELECT '{1}'::interval[]", "0A000"},
                new String[] {"SELECT ARRAY[1.5::float8]::text[]", "0A000"},
                new String[] {"SELECT k FROM ax WHERE n = ANY(5)", "42809"},
                new String[] {"SELECT k FROM ax WHERE n = ANY(k)", "42809"},
                new String[] {"SELECT k FROM ax WHERE n = ANY(k + 1)", "42809"},
                new String[] {"SELECT k FROM ax WHERE n <> ALL(abs(k))", "42809"},
                new String[] {"SELECT '{1,x}'::bigint[]", "22P02"});
        List<String> wrong = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Statement s = td.createStatement()) {
            for (String sql : SETUP) {
                s.execute(sql);
            }
            for (String[] c : cases) {
                try {
                    s.execute(c[0]);
                    wrong.add(c[0] + ": answered");
                } catch (SQLException e) {
                    if (!c[1].equals(e.getSQLState())) {
                        wrong.add(c[0] + ": " + e.getSQLState() + " " + e.getMessage());
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    /**
     * Without {@code ORDER BY}, PostgreSQL's {@code array_agg} is in whatever order it read the rows, so any order is its
     * answer; Tandem's is ascending, NULLs last (no PostgreSQL needed).
     */
    @Test
    void arrayAggWithoutOrderIsAscending() throws SQLException {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = java.sql.DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable");
                Statement s = td.createStatement()) {
            for (String sql : SETUP) {
                s.execute(sql);
            }
            try (ResultSet rs = s.executeQuery("SELECT array_agg(n), array_agg(s), array_agg(k) FROM ax WHERE k <> 3 OR k = 3")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("{10,10,20,40,NULL}");
                assertThat(rs.getString(2)).isEqualTo("{\"\",\"NULL\",a,\"b c\",NULL}");
                assertThat(rs.getString(3)).isEqualTo("{1,2,3,4,5}");
            }
        }
    }

    /** The first {@code columns} columns of every row, each read with pgjdbc's {@code getArray}: its base type and elements. */
    private static String arrays(ResultSet rs, int columns) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            for (int i = 1; i <= columns; i++) {
                Array a = rs.getArray(i);
                out.add(a.getBaseTypeName() + Arrays.deepToString((Object[]) a.getArray()));
            }
        }
        return out.toString();
    }

    /** pgjdbc's {@code getArray} of arrays of several types, as Java arrays. */
    private static String getArray(Connection c) {
        String q = "SELECT '{1,NULL,3}'::bigint[], '{a,\"b c\",NULL}'::text[], '{t,f}'::boolean[], '{1.50}'::numeric[], '{}'::bigint[]";
        try (PreparedStatement ps = c.prepareStatement(q); ResultSet rs = ps.executeQuery()) {
            return arrays(rs, 5);
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        } catch (RuntimeException e) {
            return "FAILED " + e;
        }
    }

    /** {@code WHERE n = ANY(?)} with an array parameter from pgjdbc's {@code createArrayOf}. */
    private static String setArray(Connection c, String type, Object[] values) {
        return arrayParameter(c, "SELECT k FROM ax WHERE n = ANY(?) ORDER BY k", type, values);
    }

    private static String textParameter(Connection c) {
        return arrayParameter(c, "SELECT k, s = ANY(?) FROM ax ORDER BY k", "text", new Object[] {"a", "b c", null});
    }

    /** The rows of {@code q} with its one parameter an array of {@code type} from pgjdbc's {@code createArrayOf}. */
    private static String arrayParameter(Connection c, String q, String type, Object[] values) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            ps.setArray(1, c.createArrayOf(type, values));
            try (ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, false);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        } catch (RuntimeException e) {
            return "FAILED " + e;
        }
    }
}
