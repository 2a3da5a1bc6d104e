package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code LATERAL} subqueries that aggregate, group, filter groups, drop duplicates, rank ({@code ORDER BY ... LIMIT})
 * and combine rows per outer row, and {@code VALUES} where a table can stand, as PostgreSQL 15 answers them, in one-shot
 * reads (text and binary formats) and in indexed views maintained through random writes; what Tandem refuses is
 * {@code 0A000}. Skipped without {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresLateralAggregateTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE ao (id bigint, k integer, n integer, tag text)",
            // duplicate outer rows (3 twice), keys that repeat (1), a NULL key (6), a key without matches (9)
            "INSERT INTO ao VALUES (1, 1, 3, 'a'), (2, 1, 0, 'b'), (3, 2, NULL, NULL), (3, 2, NULL, NULL), (4, 2, -2, 'a'), (5, 9, 1, 'c'),"
                    + " (6, NULL, 2, 'b'), (7, 4, 25, 'a')",
            "CREATE TABLE ai (k integer, v text, x integer)",
            "INSERT INTO ai VALUES (1, 'p', 10), (1, 'q', 20), (1, 'p', NULL), (2, 'r', 30), (2, NULL, 30), (4, 's', 40), (NULL, 't', 50),"
                    + " (4, 's', 5)");

    static final List<String> QUERIES = List.of(
            // an aggregate without GROUP BY: one row per outer row, count 0 and the others NULL over no rows
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) AS c FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.m FROM ao, LATERAL (SELECT max(x) AS m FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.c, s.t, s.a, s.lo FROM ao CROSS JOIN LATERAL (SELECT count(x) c, sum(x) t, avg(x) a, min(v) lo FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.b, s.e FROM ao JOIN LATERAL (SELECT bool_or(x > 15) b, bool_and(x > 15) e FROM ai WHERE ai.k = ao.k) s ON true",
            "SELECT ao.id, s.m FROM ao LEFT JOIN LATERAL (SELECT min(v) m FROM ai WHERE ai.k = ao.k) s ON true",
            "SELECT ao.id, s.c, s.d FROM ao LEFT JOIN LATERAL (SELECT count(*) c, count(DISTINCT v) d FROM ai WHERE ai.k = ao.k) s ON true",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) FILTER (WHERE x > 15) c FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k IS NOT DISTINCT FROM ao.k) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k OR ao.k IS NULL) s",
            "SELECT ao.id, s.c, s.m FROM ao, LATERAL (SELECT count(*) c, max(x) m FROM ai WHERE ai.x > ao.n * 10) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k AND ai.x > ao.n) s",
            "SELECT ao.id, s.m, s.c FROM ao, LATERAL (SELECT max(x) m, count(v) c FROM ai WHERE ai.k = ao.k AND ai.v <> ao.tag) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai JOIN ai a2 ON a2.k = ai.k WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k) s WHERE s.c > 0",
            "SELECT s.c, count(*) FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k) s GROUP BY s.c",
            "SELECT ao.id, s.c + ao.n AS total FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.t FROM ao, LATERAL (SELECT sum(x * ao.n) t FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k AND ao.n > 0) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ao.n > 0) s",
            "SELECT ao.id, s.a FROM ao, LATERAL (SELECT string_agg(v, ',') a FROM ai WHERE ai.k = ao.k AND ai.v = 'p') s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT DISTINCT count(*) c FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k GROUP BY ()) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k) s ORDER BY s.c DESC, ao.id LIMIT 3",
            // GROUP BY, HAVING, DISTINCT
            "SELECT ao.id, s.v, s.c FROM ao, LATERAL (SELECT v, count(*) c FROM ai WHERE ai.k = ao.k GROUP BY v) s",
            "SELECT ao.id, s.v, s.c FROM ao, LATERAL (SELECT v, count(*) c FROM ai WHERE ai.k = ao.k GROUP BY v HAVING count(*) > 1) s",
            "SELECT ao.id, s.v, s.t FROM ao LEFT JOIN LATERAL (SELECT v, sum(x) t FROM ai WHERE ai.k = ao.k GROUP BY v) s ON true",
            "SELECT ao.id, s.g FROM ao, LATERAL (SELECT ao.id * 10 AS g FROM ai WHERE ai.k = ao.k GROUP BY ao.id) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT DISTINCT v FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.v FROM ao LEFT JOIN LATERAL (SELECT DISTINCT v FROM ai WHERE ai.k = ao.k) s ON true",
            "SELECT ao.id, s.k FROM ao, LATERAL (SELECT DISTINCT k FROM ai WHERE ai.x > ao.id * 10) s",
            // ORDER BY ... LIMIT / OFFSET: the top rows of each outer row
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k ORDER BY v DESC LIMIT 1) s ORDER BY ao.id, s.v",
            "SELECT ao.id, s.v, s.x FROM ao LEFT JOIN LATERAL (SELECT v, x FROM ai WHERE ai.k = ao.k ORDER BY x DESC NULLS LAST, v LIMIT 2) s ON true"
                    + " ORDER BY ao.id, s.v, s.x",
            "SELECT ao.id, s.v, s.x FROM ao LEFT JOIN LATERAL (SELECT v, x FROM ai WHERE ai.k = ao.k ORDER BY x NULLS FIRST, v LIMIT 3) s ON true"
                    + " ORDER BY ao.id, s.v, s.x",
            "SELECT ao.id, s.v, s.x FROM ao, LATERAL (SELECT v, x FROM ai WHERE ai.k = ao.k ORDER BY x, v LIMIT 2 OFFSET 1) s ORDER BY ao.id, s.v, s.x",
            "SELECT ao.id, s.v, s.x FROM ao, LATERAL (SELECT v, x FROM ai WHERE ai.k = ao.k ORDER BY x, v OFFSET 1) s ORDER BY ao.id, s.v, s.x",
            "SELECT ao.id, s.x FROM ao, LATERAL (SELECT x FROM ai WHERE ai.x > ao.id * 5 ORDER BY x LIMIT 2) s ORDER BY ao.id, s.x",
            "SELECT ao.id, s.v, s.c FROM ao, LATERAL (SELECT v, count(*) c FROM ai WHERE ai.k = ao.k GROUP BY v ORDER BY count(*) DESC, v LIMIT 1) s"
                    + " ORDER BY ao.id",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT DISTINCT v FROM ai WHERE ai.k = ao.k ORDER BY v LIMIT 1) s ORDER BY ao.id, s.v",
            "SELECT ao.id, s.x FROM ao, LATERAL (SELECT x FROM ai WHERE ai.k = ao.k ORDER BY x) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k ORDER BY v FETCH FIRST 1 ROWS ONLY) s ORDER BY ao.id, s.v",
            "SELECT ao.id, s.m FROM ao LEFT JOIN LATERAL (SELECT x m FROM ai WHERE ai.k = ao.k ORDER BY x DESC LIMIT 1) s ON true WHERE s.m IS NULL"
                    + " ORDER BY ao.id",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k UNION ALL SELECT v FROM ai WHERE ai.k = ao.k ORDER BY v LIMIT 2) s"
                    + " ORDER BY ao.id, s.v",
            // set operations, nested and chained laterals
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k UNION SELECT 'z') s",
            "SELECT ao.id, s.v FROM ao LEFT JOIN LATERAL (SELECT v FROM ai WHERE ai.k = ao.k UNION SELECT 'z') s ON true",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k UNION ALL SELECT v FROM ai WHERE ai.x = ao.n) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k INTERSECT SELECT v FROM ai WHERE ai.x > 15) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k EXCEPT SELECT 'p') s",
            "SELECT ao.id, s.c, t.m FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k) s,"
                    + " LATERAL (SELECT max(x) m FROM ai WHERE ai.x > s.c * 10) t",
            "SELECT ao.id, s.v, t.w FROM ao, LATERAL (SELECT ai.v, ai.x FROM ai WHERE ai.k = ao.k) s, LATERAL (SELECT count(*) w FROM ai WHERE ai.x > s.x) t",
            "SELECT ao.id, s.v, s.w FROM ao, LATERAL (SELECT ai.v, t.w FROM ai, LATERAL (SELECT count(*) w FROM ai a2 WHERE a2.x > ai.x) t"
                    + " WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.c, d.e FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k) s, LATERAL (SELECT s.c * 2 AS e) d",
            // VALUES where a table can stand
            "SELECT * FROM (VALUES (1, 'x'), (2, 'y')) AS v(a, b)",
            "SELECT v.a, ai.v FROM (VALUES (1), (2), (5)) AS v(a) JOIN ai ON ai.k = v.a",
            "SELECT v.a, ai.v FROM (VALUES (1), (2), (5)) AS v(a) LEFT JOIN ai ON ai.k = v.a",
            "SELECT * FROM ai WHERE k IN (VALUES (1), (4))",
            "SELECT * FROM ai WHERE (k, v) IN (VALUES (1, 'p'), (4, 's'))",
            "SELECT * FROM ai WHERE k NOT IN (VALUES (1), (4))",
            "SELECT count(*), sum(a) FROM (VALUES (1), (2), (3)) v(a)",
            "SELECT * FROM (VALUES (1), (1), (2)) v(a) UNION SELECT 3",
            "SELECT ao.id, v.m FROM ao, (VALUES (1, 'one'), (2, 'two')) v(n, m) WHERE v.n = ao.k",
            "SELECT ao.id, v.m FROM ao CROSS JOIN LATERAL (VALUES (ao.k, 'a'), (ao.n, 'b')) v(m, w)",
            "SELECT ao.id, v.m, v.w FROM ao LEFT JOIN LATERAL (VALUES (ao.k, 'a'), (ao.n, 'b')) v(m, w) ON true",
            "SELECT ao.id, v.m FROM ao, LATERAL (VALUES (ao.k + 1)) v(m)",
            "SELECT a, b FROM (VALUES (1, 'x'), (2, NULL), (NULL, 'z')) AS v(a, b)",
            "SELECT * FROM (VALUES ('2024-01-01'::date), (NULL)) v(d)",
            "SELECT * FROM (VALUES (NULL), (NULL)) v(d)",
            "SELECT * FROM (VALUES (NULL, 2.5), (3000000000, NULL)) v(a, d)",
            "SELECT * FROM ao WHERE k IN (VALUES (1), (NULL))",
            "SELECT ao.id, v.b FROM ao JOIN (VALUES (1, 'x'), (NULL, 'y'), (2, NULL)) v(a, b) ON v.a = ao.k",
            "VALUES (1, 'a'), (2, 'b') ORDER BY 1 DESC");

    /** Queries Tandem refuses ({@code 0A000}) though PostgreSQL answers them. */
    static final List<String> REFUSED = List.of(
            "SELECT ao.id, s.m FROM ao, LATERAL (SELECT max(x) m FROM ai WHERE ai.k = ao.k HAVING max(x) > 10) s",
            "SELECT ao.id, s.m FROM ao JOIN LATERAL (SELECT max(x) m FROM ai WHERE ai.k = ao.k) s ON s.m > 10",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM ai WHERE ai.k = ao.k LIMIT 1) s",
            "SELECT ao.id, s.r FROM ao, LATERAL (SELECT row_number() OVER (ORDER BY x) r FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.m FROM ao, LATERAL (SELECT (SELECT max(x) FROM ai WHERE ai.k = ao.k) AS m) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM (SELECT * FROM ai WHERE ai.k = ao.k) q) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k ORDER BY v LIMIT 0) s",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k UNION (SELECT v FROM ai ORDER BY v LIMIT 1)) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) c FROM (VALUES (1), (2), (2)) v(a) WHERE v.a = ao.k) s",
            "SELECT ao.id, s.v, s.m FROM ao, LATERAL (SELECT v, max(x) m FROM ai WHERE ai.x > ao.n GROUP BY v HAVING max(x) > ao.n * 2) s",
            "SELECT ao.id, s.c FROM ao, LATERAL (SELECT count(*) + ao.id AS c FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, v.m FROM ao, LATERAL (VALUES (ao.k), (NULL)) v(m)",
            "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k AND ai.x > (SELECT 1)) s",
            "SELECT ao.id, s.v, s.c FROM ao, LATERAL (SELECT v, count(*) OVER () c FROM ai WHERE ai.k = ao.k) s",
            "SELECT ao.id, s.v, s.x FROM ao, LATERAL (SELECT DISTINCT ON (v) v, x FROM ai WHERE ai.k = ao.k ORDER BY v, x) s",
            "SELECT id, s.t FROM (VALUES (1, ARRAY[1, 2])) o(id, a), LATERAL (SELECT sum(e) t FROM unnest(o.a) e) s");

    private static final List<String> VIEWS = List.of(
            "lav_count AS SELECT a.id, s.c, s.m FROM lam a, LATERAL (SELECT count(*) c, max(b.n) m FROM lam b WHERE b.k = a.k AND b.id <> a.id) s",
            "lav_max AS SELECT a.id, s.m FROM lam a, LATERAL (SELECT max(b.n) m FROM lam b WHERE b.k = a.k) s",
            "lav_top AS SELECT a.id, s.id2, s.n FROM lam a LEFT JOIN LATERAL (SELECT b.id AS id2, b.n FROM lam b WHERE b.k = a.k"
                    + " ORDER BY b.n DESC NULLS LAST, b.id LIMIT 2) s ON true",
            "lav_group AS SELECT a.id, s.n, s.c FROM lam a, LATERAL (SELECT b.n, count(*) c FROM lam b WHERE b.k = a.k GROUP BY b.n HAVING count(*) > 1) s",
            "lav_distinct AS SELECT a.id, s.n FROM lam a, LATERAL (SELECT DISTINCT b.n FROM lam b WHERE b.n > a.n) s",
            "lav_less AS SELECT a.id, s.c, s.t FROM lam a, LATERAL (SELECT count(*) c, sum(b.n) t FROM lam b WHERE b.n < a.n) s",
            "lav_values AS SELECT a.id, v.name FROM lam a JOIN (VALUES (1, 'one'), (2, 'two')) v(k, name) ON v.k = a.k");

    @TempDir
    Path dir;

    @Test
    void lateralAggregatesAndValuesAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "")) {
            systems.setUp(List.of("ao", "ai"), SETUP);
            systems.compareAll(QUERIES, mismatches);
            systems.checkRefusals(REFUSED, mismatches);
            String limitParameter = "SELECT ao.id, s.v FROM ao, LATERAL (SELECT v FROM ai WHERE ai.k = ao.k ORDER BY v LIMIT ?) s";
            try (java.sql.PreparedStatement ps = systems.td().prepareStatement(limitParameter)) {
                ps.setInt(1, 1);
                ps.executeQuery().close();
                mismatches.add(limitParameter + ": expected a refusal (0A000), Tandem answered");
            } catch (SQLException e) {
                if (!"0A000".equals(e.getSQLState())) {
                    mismatches.add(limitParameter + ": expected a refusal (0A000), Tandem: " + e.getSQLState());
                }
            }
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** Indexed views over aggregating and ranking lateral subqueries, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedLateralAggregatesAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(47);
        List<String> ks = List.of("1", "2", "3", "NULL", "1", "2");
        List<String> ns = List.of("0", "1", "3", "-1", "NULL", "5", "3");
        PgAnswers.checkMaintainedViews(dir, "lam (id bigint, k integer, n integer)", VIEWS, name -> "id", 40,
                PgAnswers.randomWrites(random, "lam", "id", () -> ks.get(random.nextInt(ks.size())) + ", " + ns.get(random.nextInt(ns.size())),
                        List.of("n > 2", "k IS NULL"),
                        () -> List.of("n = n + 1", "k = " + ks.get(random.nextInt(ks.size())), "n = " + ns.get(random.nextInt(ns.size()))),
                        List.of("n < 2", "k = 1")), 150);
    }
}
