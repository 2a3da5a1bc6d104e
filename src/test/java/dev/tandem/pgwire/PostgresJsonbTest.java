package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
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
 * PostgreSQL's {@code jsonb}: its input (nesting, duplicate keys, escapes, numbers with exponents and trailing zeros,
 * scalars) and normal form, its operators and functions, order, grouping, casts and invalid input, answered by Tandem
 * and by a real PostgreSQL 15 alike over the text and binary formats; and indexed views over jsonb maintained through
 * random writes. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresJsonbTest {

    /** Documents as written, each a test of the input and the normal form. */
    private static final List<String> DOCUMENTS = List.of(
            "{\"a\": 1, \"b\": [1, 2, {\"c\": \"x\"}], \"d\": {\"e\": null}}", "[1, \"a\", null, true, 1.50, {\"k\": [1]}]", "\"str\"", "1e2",
            "null", "{}", "[]", "{\"b\":2,\"a\":1,\"a\":3}", "{\"a\": \"\\u00e9\\n\\\"\", \"ab\": -0.0, \"aaa\": 1E-3}", "true", "false",
            "[[1,2],[3]]", "  {\"a\" : 1.0}  ", "{\"a\": 1.00, \"b\": [1, 2, {\"c\": \"x\"}], \"d\": {\"e\": null}}", "-12.5e-1", "\"a\"", "[2]",
            "{\"b\": 1}", "\"\\ud83d\\ude00\\t\\u001f/\\/\"", "{\"\": 0, \"é\": {\"aa\": [], \"b\": {}}, \"B\": -1.000e+3}", "123456789012345678901234567890.5",
            "[\"a\", \"b\", \"a\"]", "{\"a\": [1, 2, 3], \"b\": {\"c\": [1, {\"d\": 2}]}}", "0.000", "[null]", "{\"x\": {\"y\": {\"z\": [0, [1, [2]]]}}}");

    private static List<String> setup() {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < DOCUMENTS.size(); i++) {
            rows.add("(" + (i + 1) + ", '" + DOCUMENTS.get(i).replace("'", "''") + "')");
        }
        return List.of("CREATE TABLE jx (k bigint, j jsonb)", "INSERT INTO jx VALUES " + String.join(", ", rows) + ", (99, NULL)",
                "CREATE INDEX jx_k ON jx (k)", "CREATE TABLE jy (k bigint, j jsonb)",
                "INSERT INTO jy VALUES (1, '{\"b\": 1}'), (2, '[2]'), (3, '\"a\"'), (4, '1.0'), (5, '{\"a\":1.0}')");
    }

    static final List<String> QUERIES = List.of(
            "SELECT k, j FROM jx",
            "SELECT k, j FROM jx ORDER BY j, k",
            "SELECT k, j FROM jx ORDER BY j DESC NULLS LAST, k",
            "SELECT k, j -> 'a', j ->> 'a', j -> 'b' -> 0, j -> 0, j ->> 1, j -> -1, j ->> -2, j -> 5 FROM jx",
            "SELECT k, j #> '{b,2,c}', j #>> '{b,2}', j #> '{}', j #>> '{}', j #>> '{d,e}', j #> '{0}', j #> '{-1, 0}', j #>> '{x,y,z,1,-1}' FROM jx",
            "SELECT k, j @> '{\"a\": 1}', '{\"a\": 1}' <@ j, j @> '[1]', j @> '1', j @> '\"a\"', j @> '[[1]]', j <@ '[1, 2, [1, 2], [3], \"a\"]' FROM jx",
            "SELECT k FROM jx WHERE j @> '{\"b\": [{\"c\": \"x\"}]}' ORDER BY k",
            "SELECT k, jsonb_typeof(j), jsonb_typeof(j -> 'a') FROM jx",
            "SELECT k, jsonb_array_length(j)::bigint FROM jx WHERE jsonb_typeof(j) = 'array'",
            "SELECT k, j = '{\"a\": 1, \"b\": [1, 2, {\"c\": \"x\"}], \"d\": {\"e\": null}}', j <> '100.0', j < '[1]', j > '{}', j >= '\"a\"' FROM jx",
            "SELECT jx.k, jy.k FROM jx JOIN jy ON jx.j = jy.j",
            "SELECT jx.k, jy.k FROM jx JOIN jy ON jx.j @> jy.j WHERE jy.k < 3",
            "SELECT j, count(*) FROM jy GROUP BY j",
            "SELECT DISTINCT j -> 'a' FROM jx WHERE k NOT IN (13, 14)",
            "SELECT j ->> 'a', count(*), max(k) FROM jx GROUP BY j ->> 'a'",
            "SELECT count(j), count(DISTINCT j) FROM jy",
            "SELECT k, jsonb_build_object('k', k, 'j', j, 'n', NULL, 'f', 1.5, 't', true, 's', 'x') FROM jx WHERE k < 6",
            "SELECT k, jsonb_build_array(k, j, 'x', 1.50, false, NULL, 2.5::float8) FROM jx WHERE k < 6",
            "SELECT jsonb_build_object(), jsonb_build_array(), jsonb_build_object('a', 1, 'a', 2, 'b', 'x', 3, 4, true, false)",
            "SELECT to_jsonb(k), to_jsonb(j), to_jsonb('a\"b'::text), to_jsonb(2.50), to_jsonb(true), to_jsonb(0.00001::float8), to_jsonb(100.0::float8), to_jsonb(DATE '2024-01-02') FROM jx WHERE k = 1",
            "SELECT k, j::text, CAST(j AS text), j::text || '!' FROM jx",
            "SELECT k, (j ->> 'b')::jsonb FROM jx WHERE k IN (1, 8, 20)",
            "SELECT k, j || '{\"z\": 0}', j || '[0]', '[0]' || j, j || j FROM jx",
            "SELECT '{\"x\": [1, 2]}'::jsonb -> 'x' ->> 1, jsonb '[1, {\"a\": [null]}]' #> '{1,a,0}'",
            "SELECT '[1, [2, 3]]'::jsonb @> '[[3]]', '[1, [2, 3]]'::jsonb @> '[3]', '\"a\"'::jsonb @> '[\"a\"]', '{}'::jsonb @> '[]', '[1.0]'::jsonb @> '[1]'",
            "SELECT 'x'::jsonb",
            "SELECT '{\"a\":1,}'::jsonb",
            "SELECT '01'::jsonb",
            "SELECT '\"\\u0000\"'::jsonb",
            "SELECT '\"\\ud800\"'::jsonb",
            "SELECT '[1, 2'::jsonb",
            "SELECT min(j) FROM jx",
            "SELECT max(j) FROM jx",
            "SELECT jsonb_array_length(j) FROM jx WHERE k = 3",
            "SELECT jsonb_array_length('{}')",
            "SELECT jsonb_build_object('a')",
            "SELECT jsonb_build_object(NULL, 1)",
            "SELECT k -> 'a' FROM jx",
            "SELECT j #> '{a' FROM jx",
            "SELECT 1::jsonb",
            "SELECT k FROM jx WHERE j @> '{\"a\": 1}'::text",
            "SELECT jsonb_typeof(k) FROM jx",
            "SELECT k, (j -> 0)::numeric, (j -> 0)::float8, (j -> 0)::int, (j -> 0)::bigint FROM jx WHERE jsonb_typeof(j -> 0) = 'number'",
            "SELECT k, (j -> 3)::boolean FROM jx WHERE k = 2",
            "SELECT (j -> 'a')::int FROM jx WHERE k = 9",
            "SELECT column_name::text, data_type::text, udt_name::text FROM information_schema.columns WHERE table_name = 'jx' ORDER BY ordinal_position",
            "SELECT a.attname::text, format_type(a.atttypid, a.atttypmod), a.atttypid::bigint FROM pg_attribute a JOIN pg_class c ON a.attrelid = c.oid"
                    + " WHERE c.relname = 'jx' AND a.attnum > 0 ORDER BY a.attnum",
            "SELECT oid::bigint, typname::text, typlen::bigint, typcategory::text, typarray::bigint FROM pg_type WHERE typname IN ('jsonb', '_jsonb') ORDER BY oid");

    @TempDir
    Path dir;

    @Test
    void jsonbAnswersAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "JSONB")) {
            Connection pg = systems.pg();
            Connection td = systems.td();
            try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
                p.execute("DROP TABLE IF EXISTS jx");
                p.execute("DROP TABLE IF EXISTS jy");
                for (String sql : setup()) {
                    p.execute(sql);
                    t.execute(sql);
                }
            }
            systems.compareAll(QUERIES, mismatches);
            // pgjdbc reads ? in a prepared statement as a parameter: the key-exists operator only in simple statements
            String exists = "SELECT k, j ? 'a', j ? 'str', j ? '', j ? 'b' FROM jx";
            PgAnswers.compare(exists, PgAnswers.answer(pg, exists, false), PgAnswers.answer(td, exists, false), "text", mismatches);
            String q = "SELECT k, j FROM jx WHERE j @> ?::jsonb ORDER BY k";
            PgAnswers.compare(q, parameterized(pg, q), parameterized(td, q), "text", mismatches);
            // jsonb's binary format (a version byte, then the text), which pgjdbc does not decode: compared as bytes
            String b = "SELECT k, j, j -> 'a' FROM jx ORDER BY k";
            PgAnswers.compare(b, binaryBytes(systems.pgBinary(), b), binaryBytes(systems.tdBinary(), b), "binary bytes", mismatches);
            for (String w : List.of("INSERT INTO jy VALUES (9, '{bad')", "UPDATE jy SET j = '[1,]' WHERE k = 1", "UPDATE jy SET j = j || '{\"c\": 2}' WHERE k = 1")) {
                PgAnswers.compare(w, PgAnswers.update(pg, w), PgAnswers.update(td, w), "write", mismatches);
            }
            PgAnswers.compare("after writes", PgAnswers.answer(pg, "SELECT * FROM jy", false), PgAnswers.answer(td, "SELECT * FROM jy", false), "text",
                    mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    private static String binaryBytes(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q); ResultSet rs = ps.executeQuery()) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getLong(1) + "|" + java.util.Arrays.toString(rs.getBytes(2)) + "|" + java.util.Arrays.toString(rs.getBytes(3)));
            }
            return out.toString();
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    private static String parameterized(Connection c, String q) {
        try (PreparedStatement ps = c.prepareStatement(q)) {
            ps.setString(1, "{\"a\": 1}");
            try (ResultSet rs = ps.executeQuery()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    out.add(rs.getString(1) + "|" + rs.getString(2));
                }
                return out.toString();
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    private static final List<String> VIEWS = List.of(
            "jv_by_a AS SELECT j -> 'a' AS a, count(*) AS n, max(k) AS kmax FROM jm WHERE jsonb_typeof(j) = 'object' GROUP BY j -> 'a'",
            "jv_rows AS SELECT k, j ->> 'a' AS a, j #> '{b,0}' AS b0, j @> '{\"t\": true}' AS t, jsonb_build_object('k', k, 'a', j -> 'a') AS o,"
                    + " j || '{\"seen\": 1}' AS seen FROM jm WHERE j ? 'a' OR jsonb_typeof(j) = 'array'",
            "jv_types AS SELECT jsonb_typeof(j) AS t, count(*) AS n FROM jm GROUP BY jsonb_typeof(j)");

    /** Indexed views over jsonb, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOfJsonbAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(33);
        List<String> docs = List.of("'{\"a\": 1, \"b\": [1, 2]}'", "'{\"a\": \"x\", \"t\": true}'", "'{\"a\": [1, {\"b\": null}], \"b\": [\"y\"]}'",
                "'[1, 2, 3]'", "'\"s\"'", "'{\"b\": {\"c\": 1}}'", "'{\"a\": {\"z\": 1}, \"a\": 2}'", "'null'", "NULL");
        int[] counter = {0};
        PgAnswers.checkMaintainedViews(dir, "jm (k bigint, j jsonb)", VIEWS, name -> (name.equals("jv_rows") ? "k" : name.equals("jv_by_a") ? "a" : "t"), 40, w -> {
            int next = counter[0];
            return switch (w < 4 ? 0 : random.nextInt(3)) {
                case 0 -> {
                    List<String> rows = new ArrayList<>();
                    for (int r = 0, n = 1 + random.nextInt(3); r < n; r++) {
                        rows.add("(" + counter[0]++ + ", " + docs.get(random.nextInt(docs.size())) + ")");
                    }
                    yield "INSERT INTO jm VALUES " + String.join(", ", rows);
                }
                case 1 -> "DELETE FROM jm WHERE " + List.of("k = " + random.nextInt(Math.max(1, next)), "j @> '{\"a\": 1}'", "j ? 'b'",
                        "jsonb_typeof(j) = 'string'").get(random.nextInt(4));
                default -> "UPDATE jm SET " + List.of("j = j || '{\"a\": 1}'", "j = '{\"t\": true, \"a\": 0}'", "j = j -> 'b'", "j = jsonb_build_array(k, j)")
                        .get(random.nextInt(4)) + " WHERE " + List.of("k = " + random.nextInt(Math.max(1, next)), "j ->> 'a' = 'x'", "k % 3 = 0")
                        .get(random.nextInt(3));
            };
        }, 60);
    }
}
