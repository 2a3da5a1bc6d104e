package dev.tandem.pgwire;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Array columns of {@code character varying}, {@code character varying(n)} and {@code numeric(p, s)}: writes by literals,
 * constructors, array functions, {@code COPY} and pgjdbc's {@code setArray} (each element held to the length, {@code 22001}, or
 * rounded to the scale, {@code 22003} past the precision), arrays of another type assigned element by element, reads in the text
 * and binary formats, {@code ANY}, subscripts, {@code unnest}, the array functions, the catalog's description, and indexed views
 * over such columns maintained through random writes; answered by Tandem and by a real PostgreSQL 15 alike. Skipped without
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

    private static final List<String> NUMERIC_SETUP = List.of(
            "CREATE TABLE anum (k bigint PRIMARY KEY, n numeric(5,2)[], m decimal(4)[], d numeric[], t text[], b bigint[], i int[],"
                    + " f double precision[], dt date[])",
            "INSERT INTO anum (k, n, m) VALUES (1, '{1.005,2,NULL,-3.14159,0.004}', '{1.5,-2.5,9999.4}')",
            "INSERT INTO anum (k, n) VALUES (10, '{1000}')",
            "INSERT INTO anum (k, m) VALUES (10, '{9999.5}')",
            "INSERT INTO anum (k, n, d) VALUES (2, '{1.234,999.994}'::numeric[], '{1.5,2.25,-7}')",
            "INSERT INTO anum (k, n) VALUES (10, ARRAY[999.995::numeric])",
            "UPDATE anum SET n = array_append(n, 7.777) WHERE k = 1",
            "UPDATE anum SET n = array_prepend(1234.5, n) WHERE k = 2",
            "UPDATE anum SET m = d WHERE k = 2",
            // assignments of an array of another type, element by element
            "INSERT INTO anum (k, t) VALUES (4, ARRAY[1, 2])",
            "INSERT INTO anum (k, t, d) VALUES (5, '{1.50,2}'::numeric[], ARRAY[3, NULL])",
            "INSERT INTO anum (k, t) VALUES (6, ARRAY[true, NULL])",
            "INSERT INTO anum (k, b) VALUES (8, '{1.5,2.5,-1.5,-2.5}'::numeric[])",
            "INSERT INTO anum (k, i, f) VALUES (9, '{1.5,2.5,-0.5}'::float8[], ARRAY[1, 2])",
            "INSERT INTO anum (k, i) VALUES (11, '{3000000000}'::bigint[])",
            "INSERT INTO anum (k, n) VALUES (11, '{1.5,99999}'::float8[])",
            "INSERT INTO anum (k, n, m) VALUES (12, '{1.555,-0.125}'::float8[], ARRAY[12, 13])",
            "INSERT INTO anum (k, t) VALUES (13, '{2024-01-02,NULL}'::date[])",
            "INSERT INTO anum (k, dt) VALUES (14, '{\"2024-01-02 10:00\"}'::timestamp[])",
            "INSERT INTO anum (k, t) VALUES (15, '{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid[])",
            "INSERT INTO anum (k, n) VALUES (16, '{1}'::text[])",
            "INSERT INTO anum (k, b) VALUES (16, ARRAY['1'])",
            "INSERT INTO anum (k, dt) VALUES (16, ARRAY[1])",
            "UPDATE anum SET t = b WHERE k = 8",
            "UPDATE anum SET d = i, n = i WHERE k = 9",
            "UPDATE anum SET b = t WHERE k = 4",
            "UPDATE anum SET b = n WHERE k = 1",
            "UPDATE anum SET b = k WHERE k = 1",
            "UPDATE anum SET dt = '{2024-01-02 10:00:00}'::timestamptz[] WHERE k = 1",
            "INSERT INTO anum (k, t, n) SELECT k + 20, b, b FROM anum WHERE k = 8",
            "INSERT INTO anum (k, n) SELECT 30, array_agg(k ORDER BY k DESC) FROM anum WHERE k < 3",
            "CREATE VIEW anumv AS SELECT k, n, m FROM anum WHERE k < 10",
            "CREATE TABLE anumc AS SELECT k, n, m, d FROM anum");

    private static final List<String> NUMERIC_QUERIES = List.of(
            "SELECT * FROM anum ORDER BY k",
            "SELECT k, n[1], n[2], n[9] IS NULL, array_length(n, 1)::bigint, array_to_string(n, ','), array_to_string(m, ';', '*') FROM anum ORDER BY k",
            "SELECT k FROM anum WHERE 2::numeric = ANY(n) ORDER BY k",
            "SELECT k, 1.01::numeric = ANY(n), 1.5::numeric <> ALL(m) FROM anum ORDER BY k",
            "SELECT k, u FROM anum, unnest(n) AS u ORDER BY k, u",
            "SELECT n, count(*) FROM anum GROUP BY n ORDER BY n",
            "SELECT DISTINCT m FROM anum ORDER BY m",
            "SELECT k, n = '{1.01,2,NULL,-3.14,0,7.78}'::numeric[], n @> '{2.0}'::numeric[], array_append(n, 1.001) FROM anum ORDER BY k",
            "SELECT k, t, b, i, d, f, dt FROM anum ORDER BY k",
            "SELECT * FROM anumv ORDER BY k",
            "SELECT * FROM anumc ORDER BY k");

    private static final List<String> NUMERIC_CATALOG = List.of(
            "SELECT attname, format_type(atttypid, atttypmod), atttypid, atttypmod, attndims FROM pg_attribute"
                    + " WHERE attrelid = 'anum'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT column_name, data_type, udt_name, numeric_precision, numeric_scale FROM information_schema.columns WHERE table_name = 'anum'"
                    + " ORDER BY ordinal_position",
            "SELECT format_type(1231, 327686), format_type(1231, 262148), format_type(1231, -1)",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'anumv'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'anumc'::regclass AND attnum > 0 ORDER BY attnum");

    private static final List<String> NUMERIC_VIEWS = List.of(
            "anv_rows AS SELECT k, n, array_to_string(n, ',') AS s, cardinality(n) AS c FROM anm WHERE 1.5::numeric = ANY(n) OR n IS NULL",
            "anv_by AS SELECT n, count(*) AS c, max(k) AS kmax FROM anm GROUP BY n",
            "anv_elems AS SELECT u, count(*) AS c FROM anm, unnest(n) AS u GROUP BY u");

    private static final List<String> CHAR_SETUP = List.of(
            "CREATE TABLE achr (k bigint PRIMARY KEY, c char(3)[], d char[], e character(2) ARRAY, t text)",
            "INSERT INTO achr VALUES (1, '{\"a  \",ab,NULL,\"\",\" a\"}', '{x}', '{\"xy   \"}', 'a'), (2, '{a}', NULL, '{a}', 'b')",
            "INSERT INTO achr (k, c) VALUES (10, '{\"ab  c\"}')",
            "INSERT INTO achr (k, c) VALUES (10, ARRAY['abcd'])",
            "INSERT INTO achr (k, e) VALUES (10, '{abc}')",
            "INSERT INTO achr (k, c, e) VALUES (3, ARRAY['a', 'b  '], ARRAY['a'])",
            "INSERT INTO achr (k, c) VALUES (4, '{1,22}'::bigint[])",
            "UPDATE achr SET e = '{\"b \",c}' WHERE k = 3",
            "UPDATE achr SET d = '{z}', e = ARRAY['q'] WHERE k = 2",
            "UPDATE achr SET c = e WHERE k = 2",
            "INSERT INTO achr (k, c) SELECT 5, e FROM achr WHERE k = 1",
            "CREATE VIEW achrv AS SELECT k, c, e FROM achr WHERE k < 4",
            "CREATE TABLE achrc AS SELECT k, c FROM achr");

    private static final List<String> CHAR_QUERIES = List.of(
            "SELECT * FROM achr ORDER BY k",
            "SELECT k, c FROM achr WHERE c IS NOT NULL ORDER BY c, k",
            "SELECT k, array_length(c, 1)::bigint AS n, cardinality(e)::bigint AS m, c = e AS eq, c < e AS lt, c @> e AS co, e <@ c AS cd, c && e AS ov"
                    + " FROM achr ORDER BY k",
            "SELECT k FROM achr WHERE 'a'::text = ANY(c) ORDER BY k",
            "SELECT k, 'b'::text <> ALL(c) AS x, 'ab'::text = ANY(c) AS y FROM achr ORDER BY k",
            "SELECT c, count(*) FROM achr GROUP BY c ORDER BY c",
            "SELECT DISTINCT e FROM achr ORDER BY e",
            "SELECT count(c), count(DISTINCT e) FROM achr",
            "SELECT a.k, b.k FROM achr a JOIN achr b ON a.c = b.e ORDER BY 1, 2",
            "SELECT * FROM achrv ORDER BY k",
            "SELECT * FROM achrc ORDER BY k");

    private static final List<String> CHAR_CATALOG = List.of(
            "SELECT attname, format_type(atttypid, atttypmod), atttypid, atttypmod, attndims FROM pg_attribute"
                    + " WHERE attrelid = 'achr'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT column_name, data_type, udt_name, character_maximum_length FROM information_schema.columns WHERE table_name = 'achr'"
                    + " ORDER BY ordinal_position",
            "SELECT format_type(1014, 7), format_type(1014, -1)",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'achrv'::regclass AND attnum > 0 ORDER BY attnum",
            "SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'achrc'::regclass AND attnum > 0 ORDER BY attnum");

    /** What would see a {@code character(n)[]} column's elements themselves, refused by Tandem and answered by PostgreSQL. */
    private static final List<String> CHAR_REFUSED = List.of(
            "SELECT k, c[1] FROM achr",
            "SELECT k, u FROM achr, unnest(c) AS u",
            "SELECT array_to_string(c, ',') FROM achr",
            "SELECT array_append(c, 'x') FROM achr",
            "SELECT c::text[] FROM achr",
            "SELECT c FROM achr UNION SELECT e FROM achr",
            "SELECT (SELECT c FROM achr WHERE k = 2)",
            "SELECT k FROM achr WHERE t = ANY(c)",
            "SELECT k FROM achr WHERE 'a '::text = ANY(c)");

    private static final List<String> CHAR_VIEWS = List.of(
            "acv_rows AS SELECT k, c, cardinality(c) AS n FROM acm WHERE 'b'::text = ANY(c) OR c IS NULL",
            "acv_by AS SELECT c, count(*) AS n, max(k) AS kmax FROM acm GROUP BY c");

    @TempDir
    Path dir;

    @Test
    void varcharArrayColumnsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "1015,1009,1043,INT8", (systems, mismatches) -> {
            systems.dropFromPostgres("VIEW avw", "TABLE avc", "TABLE av");
            int compared = systems.compareWrites(SETUP, mismatches);
            compared += compareCopies(systems, mismatches, "COPY av (k, v, w) FROM STDIN", "20\t{ab,\"c d\"}\t{\"x  \",NULL}\n21\t\\N\t{}\n",
                    "COPY av (k, v) FROM STDIN", "22\t{abcd}\n", "COPY av (k, x) FROM STDIN", "23\t{\"abcd   \"}\n");
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
            compared += systems.compareAll(QUERIES, mismatches);
            compared += systems.compareCatalog(CATALOG, mismatches);
            return compared;
        });
    }

    /** Indexed views over a {@code varchar(3)[]} column, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfVarcharArraysAnswerAsPostgresDoes() throws SQLException {
        checkViews(67, "am (k bigint, v varchar(3)[])", VIEWS, name -> name.equals("avv_by") ? "n" : name.equals("avv_elems") ? "n" : "k",
                List.of("'{a,b}'", "'{b}'", "'{}'", "NULL", "ARRAY['ab ', 'c']", "'{NULL,b}'", "'{\"a b\"}'", "'{abc   }'"), "'a'::text = ANY(v)",
                List.of("v = array_append(v, 'b')", "v = '{c}'", "v = NULL", "v = array_prepend('x  ', v)"), List.of("cardinality(v) > 1", "v IS NULL"));
    }

    /**
     * Array columns of {@code numeric(p, s)} (each element rounded to the scale, {@code 22003} past the precision) and arrays of
     * another type assigned to array columns (converted element by element), answered by Tandem and PostgreSQL alike.
     */
    @Test
    void numericArrayColumnsAndArrayAssignmentsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "1231,1700,1009,1016,1007,1022,1182,INT8", (systems, mismatches) -> {
            systems.dropFromPostgres("VIEW anumv", "TABLE anumc", "TABLE anum");
            int compared = systems.compareWrites(NUMERIC_SETUP, mismatches);
            compared += compareCopies(systems, mismatches, "COPY anum (k, n, m) FROM STDIN", "40\t{1.555,NULL,\"-0.001\"}\t{}\n41\t\\N\t{7.5}\n",
                    "COPY anum (k, n) FROM STDIN", "42\t{12345}\n");
            for (Connection[] pair : List.of(new Connection[] {systems.pg(), systems.td()}, new Connection[] {systems.pgBinary(), systems.tdBinary()})) {
                String format = pair[0] == systems.pg() ? "text" : "binary";
                int k = pair[0] == systems.pg() ? 50 : 51;
                PgAnswers.compare("setArray numeric", numericArrays(pair[0], k, "1.005"), numericArrays(pair[1], k, "1.005"), format, mismatches);
                PgAnswers.compare("setArray numeric overflow", numericArrays(pair[0], k + 10, "1000"), numericArrays(pair[1], k + 10, "1000"), format,
                        mismatches);
                compared += 2;
            }
            compared += systems.compareAll(NUMERIC_QUERIES, mismatches);
            compared += systems.compareCatalog(NUMERIC_CATALOG, mismatches);
            // PostgreSQL writes a double or a timestamp as text in its own notation, which Tandem does not: refused
            for (String q : List.of("INSERT INTO anum (k, t) VALUES (60, '{1.5}'::float8[])", "UPDATE anum SET t = f WHERE k = 9")) {
                String got = PgAnswers.update(systems.td(), q);
                if (!got.equals("ERROR 0A000") || PgAnswers.update(systems.pg(), q).startsWith("ERROR")) {
                    mismatches.add(q + ": expected a refusal of what PostgreSQL answers, Tandem: " + got);
                }
                compared++;
            }
            return compared;
        });
    }

    /** Indexed views over a {@code numeric(5,2)[]} column, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfNumericArraysAnswerAsPostgresDoes() throws SQLException {
        checkViews(71, "anm (k bigint, n numeric(5,2)[])", NUMERIC_VIEWS, name -> name.equals("anv_by") || name.equals("anv_elems") ? "c" : "k",
                List.of("'{1.5,2}'", "'{1.499}'", "'{}'", "NULL", "'{1.5,2.001}'::numeric[]", "'{NULL,1.50}'", "'{-3.145}'", "ARRAY[1, 2]",
                        "'{1.5,2.5}'::float8[]"), "2::numeric = ANY(n)",
                List.of("n = array_append(n, 1.499)", "n = '{2.5}'", "n = NULL", "n = array_prepend(0.005, n)", "n = ARRAY[7]"), List.of("cardinality(n) > 1", "n IS NULL"));
    }

    /**
     * Array columns of {@code character(n)}: each element blank-padded to {@code n} ({@code 22001} past it), compared, grouped and
     * ordered as PostgreSQL's {@code bpchar} elements are; what would see an element itself is refused.
     */
    @Test
    void charArrayColumnsAnswerAsPostgresDoes() throws SQLException {
        PgAnswers.check(dir, "1014,1042,INT8", (systems, mismatches) -> {
            systems.dropFromPostgres("VIEW achrv", "TABLE achrc", "TABLE achr");
            int compared = systems.compareWrites(CHAR_SETUP, mismatches);
            compared += compareCopies(systems, mismatches, "COPY achr (k, c, e) FROM STDIN", "20\t{\"b \",NULL,\"\"}\t{\"a  \"}\n",
                    "COPY achr (k, c) FROM STDIN", "21\t{abcd}\n");
            compared += systems.compareAll(CHAR_QUERIES, mismatches);
            compared += systems.compareCatalog(CHAR_CATALOG, mismatches);
            compared += systems.checkRefusals(CHAR_REFUSED, mismatches);
            return compared;
        });
    }

    /** Indexed views over a {@code char(3)[]} column, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfCharArraysAnswerAsPostgresDoes() throws SQLException {
        checkViews(73, "acm (k bigint, c char(3)[])", CHAR_VIEWS, name -> name.equals("acv_by") ? "n" : "k",
                List.of("'{a,b}'", "'{b}'", "'{}'", "NULL", "ARRAY['b  ', 'c']", "'{NULL,b}'", "'{\"a b\"}'", "'{\"b   \"}'"), "'a'::text = ANY(c)",
                List.of("c = '{\"b \"}'", "c = '{c}'", "c = NULL", "c = ARRAY['x', 'b']"), List.of("cardinality(c) > 1", "c IS NULL"));
    }

    /**
     * Indexed views over {@code table} ({@code name (k bigint, column type)}; each view indexed on {@code indexKey} of its name), through
     * 30 writes drawn with {@code seed} (rows of {@code values}, deletes at a key or where {@code delete} holds, updates of {@code sets}
     * at a key or where one of {@code wheres} holds), equal to PostgreSQL's answers after each, and more than 40 of them with rows.
     */
    private void checkViews(long seed, String table, List<String> views, java.util.function.UnaryOperator<String> indexKey, List<String> values,
            String delete, List<String> sets, List<String> wheres) throws SQLException {
        java.util.Random random = new java.util.Random(seed);
        PgAnswers.checkMaintainedViews(dir, table, views, indexKey, 30, PgAnswers.randomWrites(random, table.substring(0, table.indexOf(' ')), "k",
                () -> values.get(random.nextInt(values.size())), List.of(delete), () -> sets, wheres), 40);
    }

    /** Each {@code COPY} statement of {@code statementsAndData} (statement, data, statement, data...) run by both systems, compared; returns how many. */
    private static int compareCopies(PgAnswers.Systems systems, List<String> mismatches, String... statementsAndData) {
        for (int i = 0; i < statementsAndData.length; i += 2) {
            String sql = statementsAndData[i];
            String data = statementsAndData[i + 1];
            PgAnswers.compare(sql, copy(systems.pg(), sql, data), copy(systems.td(), sql, data), "copy", mismatches);
        }
        return statementsAndData.length / 2;
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

    /** A row written with pgjdbc's {@code setArray} of a {@code numeric} array into {@code numeric(5,2)[]}, read back with {@code getArray}. */
    private static String numericArrays(Connection c, int k, String first) {
        return writtenAndRead(c, k, "INSERT INTO anum (k, n) VALUES (?, ?)", "SELECT n FROM anum WHERE k = ?",
                x -> new java.sql.Array[] {x.createArrayOf("numeric", new Object[] {new java.math.BigDecimal(first), null, new java.math.BigDecimal("-2.5")})});
    }

    /** A row written with pgjdbc's {@code setArray} of {@code varchar} arrays, read back with {@code getArray}. */
    private static String setArrays(Connection c, int k, String first, String second) {
        return writtenAndRead(c, k, "INSERT INTO av (k, v, w) VALUES (?, ?, ?)", "SELECT v, w FROM av WHERE k = ?",
                x -> new java.sql.Array[] {x.createArrayOf("varchar", new Object[] {first, null, second}), x.createArrayOf("text", new Object[] {second})});
    }

    /** The array parameters of a write, made on a connection. */
    @FunctionalInterface
    private interface ArrayParameters {
        java.sql.Array[] of(Connection c) throws SQLException;
    }

    /**
     * A row written by {@code insert} (its key {@code k}, then {@code arrays}), then read back by {@code select} (at {@code k}): each
     * column's type name and its {@code getArray}, or the SQLSTATE of the first statement that failed.
     */
    private static String writtenAndRead(Connection c, int k, String insert, String select, ArrayParameters arrays) {
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setLong(1, k);
            java.sql.Array[] parameters = arrays.of(c);
            for (int i = 0; i < parameters.length; i++) {
                ps.setArray(i + 2, parameters[i]);
            }
            ps.executeUpdate();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
        try (PreparedStatement ps = c.prepareStatement(select)) {
            ps.setLong(1, k);
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
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
