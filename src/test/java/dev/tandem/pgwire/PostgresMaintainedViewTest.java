package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Indexed views using {@code LIKE}/{@code ILIKE}, {@code count}/{@code sum(DISTINCT ...)}, {@code FILTER}, {@code ROLLUP}, {@code string_agg}, {@code array_agg}, {@code
 * bool_and}/{@code bool_or}/{@code every}, the variances and standard deviations, and subqueries in expressions
 * ({@code [NOT] IN}, {@code [NOT] EXISTS}, {@code ALL}/{@code ANY}, scalar subqueries in the select list and
 * {@code HAVING}, correlated or not), joins of several inputs (comma-listed, with filters of one input and inputs no
 * equality connects), maintained
 * by Tandem's dataflows through random writes (inserts, deletes, updates), each read from its index after
 * every write and compared with the same query answered by a real PostgreSQL 15 over the same writes
 * (PostgreSQL has no index on a view: there, the view alone). Skipped without {@code
 * POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresMaintainedViewTest {

    static final int WRITES = 60;

    private static final List<String> VIEWS = List.of(
            "mv_like AS SELECT k, s FROM mv_t WHERE s LIKE 'a%' OR s ILIKE '%B_'",
            "mv_distinct AS SELECT g, count(DISTINCT v) AS n, sum(DISTINCT v) AS total, count(*) AS c FROM mv_t GROUP BY g",
            "mv_both AS SELECT g, count(DISTINCT s) AS n, max(v) AS top FROM mv_t WHERE s NOT LIKE '%c%' GROUP BY g",
            "mv_all AS SELECT count(DISTINCT g) AS ng, count(DISTINCT v) AS n, sum(DISTINCT v) AS total FROM mv_t",
            "mv_stats AS SELECT g, bool_and(v > 0) AS a, bool_or(s LIKE 'a%') AS o, every(v IS NOT NULL) AS e, var_pop(v) AS vp,"
                    + " var_samp(v) AS vs, variance(v) AS va, stddev(v) AS sd, stddev_pop(v) AS sp, stddev_samp(v::float8 / 2) AS ss,"
                    + " count(*) FILTER (WHERE v > 1) AS c, sum(v) FILTER (WHERE s ILIKE '%b%') AS sb, avg(v) FILTER (WHERE s IS NULL) AS av,"
                    + " count(DISTINCT v) FILTER (WHERE v <> 2) AS dn, max(s) FILTER (WHERE v < 3) AS ms,"
                    + " string_agg(s, '/' ORDER BY s) AS sa FROM mv_t GROUP BY g",
            "mv_rollup AS SELECT g, s LIKE 'a%' AS a, count(*) AS c, sum(v) AS total, stddev_pop(v) AS sd, bool_and(v > 1) AS b"
                    + " FROM mv_t GROUP BY ROLLUP(g, s LIKE 'a%')",
            // subqueries in expressions, correlated or not, decorrelated into joins, reductions and anti-joins
            "mv_in AS SELECT k, v FROM mv_t WHERE v IN (SELECT v FROM mv_t AS o WHERE o.s LIKE 'a%')",
            "mv_not_in AS SELECT k, g FROM mv_t WHERE v NOT IN (SELECT v FROM mv_t AS o WHERE o.g = 'x')",
            "mv_exists AS SELECT k, g FROM mv_t AS m WHERE EXISTS (SELECT 1 FROM mv_t AS o WHERE o.g = m.g AND o.v > m.v)",
            "mv_not_exists AS SELECT k, v FROM mv_t AS m WHERE NOT EXISTS (SELECT 1 FROM mv_t AS o WHERE o.v = m.v + 1)",
            "mv_scalar AS SELECT k, (SELECT count(*) FROM mv_t AS o WHERE o.g = m.g) AS n, (SELECT max(v) FROM mv_t AS o WHERE o.s = m.s) AS top,"
                    + " (SELECT v FROM mv_t AS o WHERE o.k = m.k) AS same FROM mv_t AS m",
            "mv_quantified AS SELECT k FROM mv_t AS m WHERE m.v >= ALL (SELECT v FROM mv_t AS o WHERE o.g = m.g) AND m.v < ANY (SELECT v + 1 FROM mv_t)",
            "mv_theta AS SELECT m.k, m.v, o.k AS ok, o.v AS ov FROM mv_t AS m FULL JOIN mv_t AS o ON m.g = o.g AND m.v < o.v",
            "mv_having AS SELECT g, count(*) AS c FROM mv_t AS m GROUP BY g HAVING count(*) > (SELECT count(*) FROM mv_t AS o WHERE o.v = 1) / 2",
            // window functions, recomputed per changed partition
            "mv_window AS SELECT k, g, v, row_number() OVER (PARTITION BY g ORDER BY v, k) AS rn, rank() OVER (PARTITION BY g ORDER BY v) AS r,"
                    + " dense_rank() OVER (PARTITION BY g ORDER BY v DESC) AS dr, lag(k) OVER (PARTITION BY g ORDER BY k) AS earlier,"
                    + " lead(s, 2) OVER (PARTITION BY g ORDER BY k) AS next2, sum(v) OVER (PARTITION BY g ORDER BY v) AS run_sum,"
                    + " count(*) OVER (PARTITION BY g) AS n, min(s) OVER () AS least_s FROM mv_t",
            "mv_top2 AS SELECT g, k, v FROM (SELECT g, k, v, row_number() OVER (PARTITION BY g ORDER BY v DESC NULLS LAST, k) AS rn FROM mv_t) AS r"
                    + " WHERE rn <= 2",
"mv_window_agg AS SELECT g, count(*) AS c, rank() OVER (ORDER BY count(*) DESC) AS r FROM mv_t GROUP BY g",
            // array_agg, recomputed per changed group: NULLs kept, ordered by its value, DISTINCT sorted
            "mv_arrays AS SELECT g, array_agg(v ORDER BY v) AS av, array_agg(s ORDER BY s DESC) AS sd, array_agg(DISTINCT s) AS ds,"
                    + " array_agg(k ORDER BY k DESC) AS kd, count(*) AS c FROM mv_t GROUP BY g",
            "mv_array_all AS SELECT array_agg(g ORDER BY g) AS gs, array_agg(v + 1 ORDER BY v + 1 DESC) AS vd, count(*) AS c FROM mv_t",
            // joins of several inputs planned as one: filters of one input before the joins, equalities as keys, a cross product
            // only between inputs no equality connects
            "mv_joins3 AS SELECT a.k, b.k AS bk, c.k AS ck, a.v + c.v AS w FROM mv_t AS a, mv_t AS b, mv_t AS c"
                    + " WHERE c.g = a.g AND b.v = c.v AND b.s LIKE 'a%' AND a.k <= c.k",
            "mv_cross AS SELECT a.k, b.k AS bk FROM mv_t AS a, mv_t AS b WHERE a.v = 3 AND b.g = 'z' AND b.s IS NOT NULL",
            "mv_mixed AS SELECT a.k, b.v AS bv, c.k AS ck, d.s AS ds FROM mv_t AS a, mv_t AS c LEFT JOIN mv_t AS d ON c.v = d.k,"
                    + " mv_t AS b WHERE a.g = b.g AND c.v = b.v AND a.v > 0 AND b.k <> c.k");
    private static final List<String> TEXTS = List.of("'a'", "'ab'", "'abc'", "'Ab'", "'bBc'", "'cab'", "'b_'", "'a%'", "NULL");

    @TempDir
    Path dir;

    @Test
    void indexedViewsStayAsPostgresAnswersThemThroughWrites() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        if (address == null || address.isBlank()) {
            org.junit.jupiter.api.Assertions.assertFalse("true".equalsIgnoreCase(System.getenv("CI")),
                    "POSTGRES_ORACLE_ADDRESS is not set on CI: .ci/run starts a PostgreSQL for PostgresMaintainedViewTest");
            System.err.println("!!! PostgresMaintainedViewTest SKIPPED: POSTGRES_ORACLE_ADDRESS is not set");
        }
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        Random random = new Random(33);
        List<String> mismatches = new ArrayList<>();
        int compared = 0;
        int withRows = 0;
        int fast = 0;
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection pg = DriverManager.getConnection("jdbc:postgresql://" + address + "/postgres?user=postgres&sslmode=disable");
                Connection td = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=test&sslmode=disable")) {
            try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
                for (String v : VIEWS) {
                    p.execute("DROP VIEW IF EXISTS " + v.substring(0, v.indexOf(' ')));
                }
                p.execute("DROP TABLE IF EXISTS mv_t");
                for (Statement s : List.of(p, t)) {
                    s.execute("CREATE TABLE mv_t (k bigint, g text, v bigint, s text)");
                    for (String v : VIEWS) {
                        s.execute("CREATE VIEW " + v);
                    }
                }
                for (String v : VIEWS) {
                    String name = v.substring(0, v.indexOf(' '));
                    String key = name.equals("mv_all") ? "n" : name.equals("mv_array_all") ? "c" : List.of("mv_like", "mv_in", "mv_not_in", "mv_exists", "mv_not_exists", "mv_scalar",
                            "mv_quantified", "mv_theta", "mv_joins3", "mv_cross", "mv_mixed").contains(name) ? "k" : "g";
                    t.execute("CREATE INDEX " + name + "_idx ON " + name + " (" + key + ")");
                }
            }
            int nextKey = 0;
            for (int w = 0; w < WRITES; w++) {
                String write = switch (w < 5 ? 0 : random.nextInt(3)) {
                    case 0 -> {
                        List<String> rows = new ArrayList<>();
                        for (int r = 0, n = 1 + random.nextInt(4); r < n; r++) {
                            rows.add("(" + nextKey++ + ", " + pick(random, List.of("'x'", "'y'", "'z'", "NULL")) + ", "
                                    + pick(random, List.of("1", "2", "3", "-1", "NULL")) + ", " + pick(random, TEXTS) + ")");
                        }
                        yield "INSERT INTO mv_t VALUES " + String.join(", ", rows);
                    }
                    case 1 -> "DELETE FROM mv_t WHERE " + pick(random, List.of("k = " + random.nextInt(Math.max(1, nextKey)),
                            "v = " + (random.nextInt(4) - 1), "s LIKE '" + pick(random, List.of("a%", "%b", "_")) + "'", "g IS NULL"));
                    default -> "UPDATE mv_t SET " + pick(random, List.of("v = v + 1", "s = " + pick(random, TEXTS), "g = 'x', v = 2",
                            "s = upper(s)")) + " WHERE " + pick(random, List.of("k = " + random.nextInt(Math.max(1, nextKey)),
                            "g = '" + pick(random, List.of("x", "y", "z")) + "'", "v > 1", "s ILIKE 'a%'"));
                };
                try (Statement p = pg.createStatement(); Statement t = td.createStatement()) {
                    int expected = p.executeUpdate(write);
                    int got = t.executeUpdate(write);
                    if (expected != got) {
                        mismatches.add(write + "\n  PostgreSQL changed " + expected + " rows, Tandem " + got);
                    }
                }
                for (String v : VIEWS) {
                    String name = v.substring(0, v.indexOf(' '));
                    String query = "SELECT * FROM " + name;
                    List<String> expected = rows(pg, query);
                    List<String> got = rows(td, query);
                    expected.sort(null);
                    got.sort(null);
                    compared++;
                    withRows += expected.isEmpty() ? 0 : 1;
                    if (!expected.equals(got)) {
                        mismatches.add("after " + write + ": " + query + "\n  PostgreSQL: " + expected + "\n  Tandem:     " + got);
                    }
                    if (explain(td, query).startsWith("fast path: a scan of index " + name + "_idx")) {
                        fast++;
                    }
                }
            }
        }
        System.out.println("PostgresMaintainedViewTest: " + WRITES + " writes, " + compared + " view reads compared with PostgreSQL, "
                + mismatches.size() + " mismatches, " + withRows + " with rows, " + fast + " read from the view's index");
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
        assertThat(withRows).as("view reads with rows").isGreaterThan(compared * 3 / 4);
        assertThat(fast).as("view reads answered by the maintained index").isEqualTo(compared);
    }

    private static String pick(Random random, List<String> values) {
        return values.get(random.nextInt(values.size()));
    }

    private static String explain(Connection td, String query) throws SQLException {
        try (Statement s = td.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN " + query)) {
            return rs.next() ? rs.getString(1) : "";
        }
    }

    private static List<String> rows(Connection c, String query) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(PostgresDifferentialTest.normalize(rs.getObject(i)));
                }
                out.add(String.join("|", row));
            }
        }
        return out;
    }
}
