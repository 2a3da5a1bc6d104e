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
 * Window functions (ranking and distribution, with and without ORDER BY, lag/lead with defaults, value functions,
 * aggregates, avg, variances and deviations) over default, ROWS and RANGE frames and every EXCLUDE, as PostgreSQL 15 answers them, in one-shot reads and in indexed views maintained
 * through random writes. Every query orders its rows totally where an answer depends on position. Skipped without
 * {@code POSTGRES_ORACLE_ADDRESS}, as {@link PostgresDifferentialTest} is.
 */
class PostgresWindowTest {

    private static final List<String> SETUP = List.of(
            "CREATE TABLE wt (id bigint, g bigint, v bigint, f float8, s text)",
            "INSERT INTO wt VALUES (1, 1, 10, 0.5, 'a'), (2, 1, 20, 1.5, 'b'), (3, 1, 20, NULL, 'c'), (4, 1, NULL, -2, 'd'),"
                    + " (5, 2, 5, 4, 'e'), (6, 2, 5, 4, 'e'), (7, 2, 7, 0.25, 'f'), (8, 3, NULL, NULL, 'g'), (9, NULL, 1, 8, 'h'),"
                    + " (10, 2, -3, -0.5, 'i'), (11, 1, 10, 1, 'j')",
            "CREATE TABLE wrange (id bigint, g bigint, k bigint, n numeric, d date, ts timestamp, tz timestamptz, f float8)",
            "INSERT INTO wrange VALUES (1, 1, 1, 0.5, '2024-01-01', '2024-01-01 00:00:00', '2024-01-01 00:00:00+00', 1),"
                    + " (2, 1, 2, 1.25, '2024-01-02', '2024-01-01 01:30:00', '2024-01-01 01:00:00+00', 2),"
                    + " (3, 1, 2, 2, '2024-01-02', '2024-01-01 02:00:00', '2024-01-01 02:30:00+00', 3),"
                    + " (4, 2, 4, NULL, '2024-01-31', '2024-02-01 00:00:00', NULL, 4),"
                    + " (5, 2, NULL, 3.5, NULL, NULL, '2024-01-01 03:00:00+00', 5), (6, 2, 5, 3.5, '2024-02-29', '2024-01-31 12:00:00', '2024-01-01 03:00:00+00', 6),"
                    + " (7, NULL, 7, -1, '2023-12-31', '2024-03-01 00:00:00', '2023-12-31 23:00:00+00', 7), (8, 1, NULL, NULL, NULL, NULL, NULL, 8),"
                    + " (9, 1, 9223372036854775806, 10, '2024-01-03', '2024-01-01 02:00:00', '2024-01-01 00:30:00+00', 9),"
                    + " (10, 2, -9223372036854775807, 0, '2024-01-01', '2024-01-01 00:00:00', '2024-01-01 01:30:00+00', 10)");

    static final List<String> QUERIES = List.of(
            "SELECT id, percent_rank() OVER (PARTITION BY g ORDER BY v), cume_dist() OVER (PARTITION BY g ORDER BY v) FROM wt ORDER BY id",
            "SELECT id, percent_rank() OVER (ORDER BY v DESC NULLS LAST), cume_dist() OVER (ORDER BY s DESC) FROM wt ORDER BY id",
            "SELECT id, CAST(ntile(1) OVER (ORDER BY id) AS bigint), CAST(ntile(3) OVER (ORDER BY id) AS bigint), CAST(ntile(4) OVER (PARTITION BY g ORDER BY id) AS bigint),"
                    + " CAST(ntile(100) OVER (ORDER BY id) AS bigint) FROM wt ORDER BY id",
            "SELECT id, lag(v, 1, 0) OVER (ORDER BY id), lead(v, 2, -1) OVER (ORDER BY id), lag(s, 3, 'none') OVER (PARTITION BY g ORDER BY id),"
                    + " lead(v, 1, id) OVER (PARTITION BY g ORDER BY id), lag(f, 1, 0.5) OVER (ORDER BY id), lag(v, 0, 7) OVER (ORDER BY id) FROM wt ORDER BY id",
            "SELECT id, lag(v, -2, 99) OVER (ORDER BY id), lead(v, 20, 3) OVER (ORDER BY id), lag(v, 1, CAST(NULL AS bigint)) OVER (ORDER BY id) FROM wt ORDER BY id",
            "SELECT id, first_value(s) OVER (PARTITION BY g ORDER BY v, id), last_value(s) OVER (PARTITION BY g ORDER BY v, id),"
                    + " nth_value(s, 2) OVER (PARTITION BY g ORDER BY v, id), last_value(v) OVER (PARTITION BY g ORDER BY v) FROM wt ORDER BY id",
            "SELECT id, first_value(v) OVER (PARTITION BY g), last_value(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),"
                    + " nth_value(id, 3) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 3 FOLLOWING), first_value(s) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING) FROM wt ORDER BY id",
            "SELECT id, CAST(sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS bigint), count(*) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),"
                    + " min(s) OVER (ORDER BY id ROWS 2 PRECEDING), max(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) FROM wt ORDER BY id",
            "SELECT id, sum(f) OVER (ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING), count(v) OVER (ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 5 FOLLOWING),"
                    + " CAST(sum(v) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) AS bigint) FROM wt ORDER BY id",
            "SELECT id, CAST(sum(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS bigint),"
                    + " count(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),"
                    + " count(*) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND CURRENT ROW), min(s) OVER (ORDER BY g RANGE UNBOUNDED PRECEDING) FROM wt ORDER BY id",
            "SELECT id, avg(v) OVER (PARTITION BY g ORDER BY id), avg(v) OVER (), avg(f) OVER (PARTITION BY g), avg(v) OVER (ORDER BY id ROWS 1 PRECEDING),"
                    + " avg(v::numeric / 3) OVER (ORDER BY v, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM wt ORDER BY id",
            "SELECT g, avg(v), sum(avg(v)) OVER (ORDER BY g), CAST(ntile(2) OVER (ORDER BY g) AS bigint) FROM wt GROUP BY g ORDER BY g",
            "SELECT id, 10 * CAST(ntile(3) OVER (ORDER BY id) AS bigint) + row_number() OVER (ORDER BY id DESC), round(avg(v) OVER (ORDER BY id), 2) FROM wt ORDER BY id",
            "SELECT id, g FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM wt) t WHERE rn <= 2 ORDER BY id",
            "SELECT id, round(CAST(var_pop(v) OVER (PARTITION BY g ORDER BY id) AS numeric), 8), round(CAST(var_samp(v) OVER (PARTITION BY g) AS numeric), 8),"
                    + " round(CAST(variance(f) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS numeric), 8),"
                    + " round(CAST(stddev_pop(f) OVER (PARTITION BY g ORDER BY v) AS numeric), 8), round(CAST(stddev_samp(v) OVER (ORDER BY id ROWS 3 PRECEDING) AS numeric), 8),"
                    + " round(CAST(stddev(v) OVER () AS numeric), 8) FROM wt ORDER BY id",
            "SELECT id, var_pop(f) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND CURRENT ROW), CAST(var_samp(v) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND CURRENT ROW) AS numeric),"
                    + " CAST(stddev_pop(v) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS numeric) FROM wt ORDER BY id",
            "SELECT id, CAST(sum(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS bigint),"
                    + " count(*) OVER (PARTITION BY g ORDER BY v RANGE UNBOUNDED PRECEDING EXCLUDE GROUP), count(v) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES),"
                    + " CAST(sum(v) OVER (ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE TIES) AS bigint),"
                    + " max(v) OVER (ORDER BY g, id ROWS UNBOUNDED PRECEDING EXCLUDE NO OTHERS), min(s) OVER (ORDER BY g RANGE UNBOUNDED PRECEDING EXCLUDE CURRENT ROW) FROM wt ORDER BY id",
            "SELECT id, first_value(g) OVER (ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP),"
                    + " last_value(g) OVER (ORDER BY g RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE TIES),"
                    + " nth_value(v, 2) OVER (ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW),"
                    + " last_value(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW),"
                    + " round(CAST(avg(f) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE GROUP) AS numeric), 8),"
                    + " round(CAST(var_samp(v) OVER (ORDER BY v RANGE UNBOUNDED PRECEDING EXCLUDE TIES) AS numeric), 8) FROM wt ORDER BY id",
            "SELECT id, CAST(count(*) OVER (ORDER BY k RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS bigint), count(*) OVER (ORDER BY k RANGE 1 PRECEDING),"
                    + " count(*) OVER (ORDER BY k DESC RANGE BETWEEN 1 PRECEDING AND 3 FOLLOWING),"
                    + " min(id) OVER (ORDER BY k NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING),"
                    + " max(id) OVER (ORDER BY k DESC NULLS LAST RANGE BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING),"
                    + " sum(n) OVER (PARTITION BY g ORDER BY k RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING) FROM wrange ORDER BY id",
            "SELECT id, sum(n) OVER (ORDER BY n RANGE BETWEEN 1.5 PRECEDING AND 0.5 FOLLOWING), first_value(n) OVER (PARTITION BY g ORDER BY n RANGE BETWEEN 1 PRECEDING AND CURRENT ROW),"
                    + " last_value(n) OVER (ORDER BY n DESC RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING), count(*) OVER (ORDER BY n NULLS FIRST RANGE 0 PRECEDING),"
                    + " nth_value(id, 2) OVER (ORDER BY n RANGE BETWEEN 10 PRECEDING AND 10 FOLLOWING EXCLUDE GROUP) FROM wrange WHERE id <> 5 ORDER BY id",
            "SELECT id, count(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL '1' DAY PRECEDING AND INTERVAL '1' DAY FOLLOWING),"
                    + " count(*) OVER (ORDER BY ts RANGE INTERVAL '2' HOUR PRECEDING), count(*) OVER (ORDER BY ts DESC RANGE BETWEEN CURRENT ROW AND INTERVAL '1' MONTH FOLLOWING),"
                    + " count(*) OVER (ORDER BY tz RANGE BETWEEN INTERVAL '90' MINUTE PRECEDING AND CURRENT ROW),"
                    + " min(id) OVER (ORDER BY d DESC RANGE BETWEEN INTERVAL '1' MONTH PRECEDING AND INTERVAL '1' DAY PRECEDING) FROM wrange ORDER BY id",
            "SELECT id, round(CAST(var_pop(f) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS numeric), 6),"
                    + " count(*) OVER (ORDER BY k RANGE BETWEEN 2 PRECEDING AND 2 FOLLOWING EXCLUDE TIES), CAST(sum(k) OVER (ORDER BY id RANGE 1 PRECEDING) AS bigint)"
                    + " FROM wrange ORDER BY id",
            "SELECT id, count(*) OVER (ORDER BY k, id RANGE 1 PRECEDING) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY k RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY id RANGE BETWEEN CURRENT ROW AND 1 PRECEDING) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY id RANGE BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY k RANGE 1.5 PRECEDING) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY s RANGE 1 PRECEDING) FROM wt",
            "SELECT id, count(*) OVER (ORDER BY d RANGE 1 PRECEDING) FROM wrange",
            "SELECT id FROM wt ORDER BY row_number() OVER (ORDER BY v DESC, id)",
            "SELECT id, v FROM wt ORDER BY rank() OVER (PARTITION BY g ORDER BY v), id",
            "SELECT id, s FROM wt ORDER BY lag(id, 2, 0) OVER (ORDER BY s DESC, id) DESC, id LIMIT 5",
            "SELECT id FROM wt GROUP BY id, row_number() OVER (ORDER BY id)",
            "SELECT id, v FROM (SELECT id, v FROM wt ORDER BY percent_rank() OVER (PARTITION BY g ORDER BY v NULLS FIRST), id LIMIT 6) t ORDER BY id",
            "SELECT g, count(*) FROM wt GROUP BY g ORDER BY sum(count(*)) OVER (ORDER BY g DESC), g",
            "SELECT id, CASE WHEN lag(v) OVER (ORDER BY id) IS NULL THEN 0 ELSE 1 END, coalesce(lead(s) OVER (ORDER BY id), 'end') FROM wt ORDER BY id",
            "SELECT id FROM wt WHERE row_number() OVER (ORDER BY id) > 2",
            "SELECT id, variance(DISTINCT v) OVER () FROM wt",
            "SELECT g, count(*) FROM wt GROUP BY g HAVING rank() OVER (ORDER BY g) > 1",
            "SELECT id, rank() OVER (), dense_rank() OVER (PARTITION BY g), percent_rank() OVER (PARTITION BY g), cume_dist() OVER (),"
                    + " rank() OVER (PARTITION BY g) + row_number() OVER (ORDER BY id) FROM wt ORDER BY id");

    static final List<String> REFUSED = List.of(
            "SELECT id, stddev(v::numeric) OVER (ORDER BY id) FROM wt",
            "SELECT id, ntile(g::int) OVER (ORDER BY id) FROM wt",
            "SELECT id, nth_value(v, g::int) OVER (ORDER BY id) FROM wt",
            "SELECT id, lag(v, g::int) OVER (ORDER BY id) FROM wt",
            "SELECT id, count(*) OVER (ORDER BY f RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM wrange",
            "SELECT id, count(*) OVER (ORDER BY tz RANGE INTERVAL '1' DAY PRECEDING) FROM wrange");

    private static final List<String> VIEWS = List.of(
            "wv_rank AS SELECT id, g, v, row_number() OVER (PARTITION BY g ORDER BY v, id) AS rn, rank() OVER (PARTITION BY g ORDER BY v) AS rk,"
                    + " dense_rank() OVER (PARTITION BY g ORDER BY v) AS dr, percent_rank() OVER (PARTITION BY g ORDER BY v) AS pr,"
                    + " cume_dist() OVER (PARTITION BY g ORDER BY v) AS cd FROM wm",
            "wv_value AS SELECT id, CAST(ntile(3) OVER (PARTITION BY g ORDER BY v, id) AS bigint) AS nt, lag(v, 1, -1) OVER (PARTITION BY g ORDER BY v, id) AS lg,"
                    + " lead(v, 2, id) OVER (PARTITION BY g ORDER BY v, id) AS ld, first_value(id) OVER (PARTITION BY g ORDER BY v, id) AS fv,"
                    + " last_value(id) OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING) AS lv,"
                    + " nth_value(id, 2) OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING) AS nv FROM wm",
            "wv_agg AS SELECT id, CAST(sum(v) OVER (PARTITION BY g ORDER BY v) AS bigint) AS s1,"
                    + " avg(v) OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS a1, count(*) OVER (PARTITION BY g) AS c,"
                    + " min(v) OVER (ORDER BY v, id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS m1,"
                    + " max(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS m2,"
                    + " sum(f) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING) AS sf FROM wm",
            "wv_top AS SELECT id, g, v FROM (SELECT id, g, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM wm) t WHERE rn <= 2",
            "wv_var AS SELECT id, round(CAST(var_pop(v) OVER (PARTITION BY g ORDER BY v) AS numeric), 6) AS vp,"
                    + " round(CAST(stddev_samp(f) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS numeric), 6) AS ss,"
                    + " round(CAST(variance(v) OVER (ORDER BY v RANGE UNBOUNDED PRECEDING EXCLUDE GROUP) AS numeric), 6) AS vx FROM wm",
            "wv_range AS SELECT id, CAST(sum(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS bigint) AS s1,"
                    + " count(*) OVER (ORDER BY v DESC RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING) AS c1,"
                    + " min(id) OVER (PARTITION BY g ORDER BY v NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS m1,"
                    + " first_value(v) OVER (ORDER BY v RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS f1,"
                    + " count(*) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE GROUP) AS c2,"
                    + " round(CAST(stddev_pop(f) OVER (ORDER BY v RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS numeric), 6) AS sd,"
                    + " max(f) OVER (PARTITION BY g ORDER BY v DESC NULLS FIRST RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS mx FROM wm",
            "wv_expr AS SELECT id, CASE WHEN lag(v) OVER (PARTITION BY g ORDER BY v, id) IS NULL THEN -1 ELSE v - lag(v) OVER (PARTITION BY g ORDER BY v, id) END AS dv,"
                    + " coalesce(lead(id) OVER (ORDER BY id), 0) * 2 + rank() OVER (PARTITION BY g ORDER BY v) AS x FROM wm",
            "wv_exclude AS SELECT id, count(*) OVER (PARTITION BY g ORDER BY v RANGE UNBOUNDED PRECEDING EXCLUDE GROUP) AS cg,"
                    + " CAST(sum(v) OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW) AS bigint) AS sc,"
                    + " min(id) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE TIES) AS mt,"
                    + " first_value(id) OVER (ORDER BY v, id ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW) AS fc,"
                    + " last_value(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP) AS lg,"
                    + " rank() OVER (PARTITION BY g) AS rk, cume_dist() OVER (PARTITION BY g) AS cd FROM wm");

    @TempDir
    Path dir;

    @Test
    void windowFunctionsAndFramesAnswerAsPostgresDoes() throws SQLException {
        String address = System.getenv("POSTGRES_ORACLE_ADDRESS");
        Assumptions.assumeTrue(address != null && !address.isBlank(), "POSTGRES_ORACLE_ADDRESS is not set");
        List<String> mismatches = new ArrayList<>();
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                PgAnswers.Systems systems = PgAnswers.Systems.open(address, server.port(), "20,700,701,1700")) {
            systems.setUp(List.of("wt", "wrange"), SETUP);
            systems.compareAll(QUERIES, mismatches);
            systems.checkRefusals(REFUSED, mismatches);
        }
        assertThat(mismatches).as("%d differences from PostgreSQL:\n%s", mismatches.size(), String.join("\n", mismatches)).isEmpty();
    }

    /** Indexed views of window functions, maintained through random writes, equal to PostgreSQL's answers after each. */
    @Test
    void maintainedWindowViewsAnswerAsPostgresDoes() throws SQLException {
        java.util.Random random = new java.util.Random(47);
        List<String> gs = List.of("0", "1", "1", "2", "NULL");
        List<String> vs = List.of("-3", "0", "1", "1", "2", "5", "NULL");
        List<String> fs = List.of("0.5", "-1.5", "2", "NULL", "0.25");
        PgAnswers.checkMaintainedViews(dir, "wm (id bigint, g bigint, v bigint, f float8)", VIEWS, name -> "id", 50,
                PgAnswers.randomWrites(random, "wm", "id", () -> gs.get(random.nextInt(gs.size())) + ", " + vs.get(random.nextInt(vs.size()))
                        + ", " + fs.get(random.nextInt(fs.size())), List.of("v > 2", "g IS NULL"),
                        () -> List.of("v = v + 1", "g = " + gs.get(random.nextInt(gs.size())), "f = " + fs.get(random.nextInt(fs.size()))),
                        List.of("v < 0", "g = 1")), 150);
    }
}
