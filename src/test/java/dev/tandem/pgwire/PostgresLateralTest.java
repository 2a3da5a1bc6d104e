package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Set-returning functions in {@code FROM} ({@code generate_series}, {@code unnest [WITH ORDINALITY]}) alone and
 * laterally after other items, and {@code LATERAL} subqueries, as PostgreSQL 15 answers them, in one-shot reads and in
 * indexed views maintained through random writes; what Tandem refuses is {@code 0A000}. Skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresLateralTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE lt (id bigint, n bigint, tags text[], nums bigint[], k bigint)",
            "INSERT INTO lt VALUES (1, 3, '{a,b,c}', '{1,2,3}', 1), (2, 0, '{}', '{}', 1), (3, NULL, NULL, NULL, 2),"
                    + " (4, -2, '{x,NULL,y}', '{5,NULL}', 2), (5, 1, '{b}', '{7,7,7}', 3), (6, 2, '{NULL}', '{NULL}', NULL)",
            "CREATE TABLE lu (k bigint, v text, x bigint)",
            "INSERT INTO lu VALUES (1, 'p', 10), (1, 'q', 20), (2, 'r', 30), (4, 's', 40), (NULL, 't', 50)");

    static final List<String> QUERIES = List.of(
            // generate_series alone
            "SELECT * FROM generate_series(1, 5)",
            "SELECT * FROM generate_series(1, 5) AS g",
            "SELECT g.n FROM generate_series(1, 10, 3) AS g(n)",
            "SELECT n FROM generate_series(10, 1, -4) AS g(n)",
            "SELECT * FROM generate_series(5, 1)",
            "SELECT * FROM generate_series(1, 1)",
            "SELECT * FROM generate_series(1, 5, 0)",
            "SELECT * FROM generate_series(1, NULL::integer)",
            "SELECT * FROM generate_series(9223372036854775805, 9223372036854775807)",
            "SELECT * FROM generate_series(-9223372036854775806, -9223372036854775808, -1)",
            "SELECT * FROM generate_series(1::bigint, 3::bigint) x",
            "SELECT * FROM generate_series(0.5, 2.5, 0.5)",
            "SELECT * FROM generate_series(1, 2, 0.25)",
            "SELECT * FROM generate_series(1.5, 0, -0.5)",
            "SELECT * FROM generate_series(1.0, 3)",
            "SELECT * FROM generate_series('2024-01-30 10:00'::timestamp, '2024-05-01'::timestamp, '1 month'::interval)",
            "SELECT t FROM generate_series('2024-01-01'::timestamp, '2023-12-31'::timestamp, '-7 hours'::interval) AS t",
            "SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-02'::timestamp, '0 days'::interval)",
            "SELECT g * 2 AS d, g FROM generate_series(1, 4) g WHERE g <> 2 ORDER BY g DESC",
            "SELECT count(*), sum(g), min(g), max(g) FROM generate_series(1, 100) g",
            "SELECT a.a, b.b FROM generate_series(1, 3) a, generate_series(1, 2) b",
            // unnest alone
            "SELECT * FROM unnest(ARRAY[1, 2, 3])",
            "SELECT x FROM unnest(ARRAY['a', NULL, 'c']) AS x",
            "SELECT * FROM unnest(ARRAY['p', 'q']) WITH ORDINALITY",
            "SELECT * FROM unnest(ARRAY['p', 'q']) WITH ORDINALITY AS u(v, i)",
            "SELECT * FROM unnest('{}'::text[]) AS x",
            // lateral over a table
            "SELECT id, x FROM lt, unnest(lt.tags) AS x",
            "SELECT id, x FROM lt, unnest(lt.nums) AS x WHERE x > 1",
            "SELECT lt.id, u.x, u.i FROM lt, unnest(lt.tags) WITH ORDINALITY AS u(x, i)",
            "SELECT lt.id, u.* FROM lt CROSS JOIN LATERAL unnest(lt.nums) WITH ORDINALITY AS u(x, i) ORDER BY lt.id, u.i",
            "SELECT id, x FROM lt LEFT JOIN LATERAL unnest(lt.tags) AS x ON true",
            "SELECT id, x, i FROM lt LEFT JOIN LATERAL unnest(lt.nums) WITH ORDINALITY AS u(x, i) ON true",
            "SELECT id, g FROM lt CROSS JOIN LATERAL generate_series(1, lt.n) g",
            "SELECT id, g FROM lt, generate_series(lt.n, 1, -1) AS g",
            "SELECT id, g FROM lt LEFT JOIN LATERAL generate_series(1, lt.n) g ON true",
            "SELECT id, g FROM lt JOIN LATERAL generate_series(1, lt.n) g ON g > 1",
            "SELECT id, g FROM lt, generate_series(1, 3, lt.n) g",
            "SELECT id, g FROM lt, generate_series(1, 3, lt.n) g WHERE lt.n IS NULL OR lt.n > 0",
            "SELECT id, x, g FROM lt, unnest(lt.tags) x, generate_series(1, lt.n) g",
            "SELECT x, count(*) FROM lt, unnest(lt.tags) AS x GROUP BY x",
            "SELECT id, max(x), count(x), count(*) FROM lt, unnest(lt.nums) AS x GROUP BY id",
            "SELECT x, count(*) FROM lt LEFT JOIN LATERAL unnest(lt.tags) x ON true GROUP BY x",
            // lateral subqueries
            "SELECT lt.id, s.y FROM lt, LATERAL (SELECT x * 10 AS y FROM unnest(lt.nums) x WHERE x > 1) s",
            "SELECT lt.id, s.v FROM lt CROSS JOIN LATERAL (SELECT lu.v FROM lu WHERE lu.k = lt.k) s",
            "SELECT lt.id, s.v, s.x FROM lt LEFT JOIN LATERAL (SELECT lu.v, lu.x FROM lu WHERE lu.k = lt.k) s ON true",
            "SELECT lt.id, s.w FROM lt, LATERAL (SELECT lu.x + lt.id AS w FROM lu WHERE lu.x > lt.id * 10) s",
            "SELECT lt.id, s.d FROM lt, LATERAL (SELECT lt.id * 2 AS d) s",
            "SELECT lt.id, s.m FROM lt CROSS JOIN LATERAL (SELECT max(x) AS m FROM lu WHERE lu.k = lt.k) s",
            "SELECT lt.id, s.v FROM lt CROSS JOIN LATERAL (SELECT v FROM lu WHERE lu.k = lt.k ORDER BY v LIMIT 1) s ORDER BY lt.id, s.v",
            // refused
            "SELECT id, x FROM lt LEFT JOIN LATERAL unnest(lt.tags) AS x ON x <> 'a'",
            "SELECT * FROM generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day'::interval)",
            "SELECT * FROM generate_series(1, 3) WITH ORDINALITY",
            "SELECT id FROM lt WHERE 'b' IN (SELECT * FROM unnest(lt.tags))");

    /** Queries Tandem refuses ({@code 0A000}) though PostgreSQL answers them. */
    static final List<String> REFUSED = List.of(
            "SELECT id, x FROM lt LEFT JOIN LATERAL unnest(lt.tags) AS x ON x <> 'a'",
            "SELECT * FROM generate_series('2024-01-01'::date, '2024-01-03'::date, '1 day'::interval)",
            "SELECT * FROM generate_series(1, 3) WITH ORDINALITY",
            "SELECT id FROM lt WHERE 'b' IN (SELECT * FROM unnest(lt.tags))");

    private static final List<String> VIEWS = List.of(
            "lv_tags AS SELECT lm.id, x FROM lm, unnest(lm.tags) AS x",
            "lv_ord AS SELECT lm.id, u.x, u.i FROM lm CROSS JOIN LATERAL unnest(lm.nums) WITH ORDINALITY AS u(x, i)",
            "lv_left AS SELECT lm.id, x FROM lm LEFT JOIN LATERAL unnest(lm.tags) AS x ON true",
            "lv_series AS SELECT lm.id, g FROM lm CROSS JOIN LATERAL generate_series(1, lm.n) AS g WHERE g <> 2",
            "lv_count AS SELECT x, count(*) AS c FROM lm, unnest(lm.tags) AS x GROUP BY x",
            "lv_sub AS SELECT lm.id, s.y FROM lm, LATERAL (SELECT v * 2 AS y FROM unnest(lm.nums) v WHERE v IS NOT NULL) s");

    @TempDir
    Path dir;

    @Test
    void setReturningFunctionsAndLateralAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "")) {
            systems.setUp(List.of("lt", "lu"), SETUP);
            List<String> compared = QUERIES.stream().filter(q -> !REFUSED.contains(q)).toList();
            systems.compareAll(compared, mismatches);
            for (String q : List.of("SELECT * FROM generate_series(?, ?) AS g", "SELECT id, g FROM lt, generate_series(?, lt.n) AS g",
                    "SELECT id, x FROM lt, unnest(lt.nums) AS x WHERE x > ?")) {
                PgAnswers.compare(q, withInts(systems.pg(), q), withInts(systems.td(), q), "parameters", mismatches);
            }
            systems.checkRefusals(REFUSED, mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** The answer to {@code q} prepared with the integers 1, 3, 5... as its parameters, or its error's SQLSTATE. */
    private static String withInts(Connection c, String q) {
        try (java.sql.PreparedStatement ps = c.prepareStatement(q)) {
            for (int i = 1; i <= q.chars().filter(ch -> ch == '?').count(); i++) {
                ps.setInt(i, 2 * i - 1);
            }
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                return PgAnswers.rows(rs, true);
            }
        } catch (SQLException e) {
            return "ERROR " + e.getSQLState();
        }
    }

    /** A series too long to hold is refused by a resource limit (a 53xxx or 54xxx error), and the server goes on answering. */
    @Test
    void aHugeSeriesIsStoppedByALimit() throws SQLException {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable")) {
            String got = PgAnswers.answer(td, "SELECT count(*) FROM generate_series(1, 1000000000000) g", false);
            assertThat(got).matches("ERROR 5[34]...");
            assertThat(PgAnswers.answer(td, "SELECT count(*) FROM generate_series(1, 1000) g", false)).isEqualTo("[int8] [1000]");
        }
    }

    /** Indexed views over set-returning functions, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedViewsOverSetReturningFunctionsAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(43);
        List<String> tags = List.of("'{a,b}'", "'{}'", "NULL", "'{c,NULL,a}'", "'{b}'", "'{a,a,d}'", "'{NULL}'");
        List<String> nums = List.of("'{1,2,3}'", "'{}'", "NULL", "'{4,NULL}'", "'{2,2}'", "'{-1}'");
        List<String> ns = List.of("0", "1", "3", "-1", "NULL", "5");
        PgAnswers.checkMaintainedViews(dir, "lm (id bigint, n bigint, tags text[], nums bigint[])", VIEWS,
                name -> name.equals("lv_count") ? "x" : "id", 40,
                PgAnswers.randomWrites(random, "lm", "id", () -> ns.get(random.nextInt(ns.size())) + ", " + tags.get(random.nextInt(tags.size()))
                        + ", " + nums.get(random.nextInt(nums.size())), List.of("n > 2", "tags IS NULL"),
                        () -> List.of("n = n + 1", "tags = " + tags.get(random.nextInt(tags.size())), "nums = " + nums.get(random.nextInt(nums.size()))),
                        List.of("n < 2")), 100);
    }
}
