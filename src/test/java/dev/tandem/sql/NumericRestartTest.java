package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Numerics are stored exactly, with their scale, and read back so after a restart (the durable log reopened,
 * before and after it is compacted); an index keyed by a numeric finds them; a maintained view's sum and avg
 * of numerics follow inserts and deletes exactly.
 */
class NumericRestartTest {

    @TempDir
    Path dir;

    private static List<String> rows(SqlStack s, String sql) {
        return rows(s, sql, new SqlSession());
    }

    private static List<String> rows(SqlStack s, String sql, SqlSession session) {
        return s.run(sql, session).rows().stream().map(r -> Arrays.stream(r).map(SqlValues::text).toList().toString()).toList();
    }

    @Test
    void numericsSurviveRestartAndCompaction() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE m (k bigint, a numeric, b decimal)", new SqlSession());
            s.run("INSERT INTO m VALUES (1, 1.50, -0.001), (2, 123456789012345678901234567890.0001, 0), (3, NULL, 10), (4, '-7.250', 2)",
                    new SqlSession());
            s.run("CREATE INDEX m_by_a ON m (a)", new SqlSession());
            s.run("CREATE VIEW ms AS SELECT b > 0 AS pos, sum(a) AS s, avg(a) AS av, count(*) AS n FROM m GROUP BY b > 0", new SqlSession());
            s.run("CREATE INDEX ms_by_pos ON ms (pos)", new SqlSession());
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                assertThat(rows(s, "SELECT k, a, b FROM m ORDER BY k")).containsExactly("[1, 1.50, -0.001]",
                        "[2, 123456789012345678901234567890.0001, 0]", "[3, null, 10]", "[4, -7.250, 2]");
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> rows(s, "EXPLAIN SELECT k FROM m WHERE a = 1.5").get(0).contains("fast path: a scan of index m_by_a"));
                // compared by value: 1.5 finds the stored 1.50
                assertThat(rows(s, "SELECT k FROM m WHERE a = 1.5")).containsExactly("[1]");
                assertThat(rows(s, "SELECT k FROM m WHERE a IN (1.500, -7.25) ORDER BY k")).containsExactly("[1]", "[4]");
                assertThat(rows(s, "SELECT pos, s, av, n FROM ms ORDER BY pos")).containsExactly(
                        "[f, 123456789012345678901234567891.5001, 61728394506172839450617283945.7501, 2]",
                        "[t, -7.250, -7.2500000000000000, 2]");
                s.run("INSERT INTO m VALUES (" + (10 + round) + ", 0.25, 5)", new SqlSession());
                s.run("DELETE FROM m WHERE k = " + (10 + round), new SqlSession());
                s.storage.compact();
            }
        }
        try (SqlStack s = new SqlStack(dir)) {
            // one session: having written, it reads its own writes (a fresh session reads at the freshest
            // time every input is ready, which may precede the insert)
            SqlSession writer = new SqlSession();
            s.run("DELETE FROM m WHERE k = 4", writer);
            s.run("INSERT INTO m VALUES (5, 0.1, 1), (6, 0.2, 1)", writer);
            assertThat(rows(s, "SELECT pos, s, av, n FROM ms ORDER BY pos", writer)).containsExactly(
                    "[f, 123456789012345678901234567891.5001, 61728394506172839450617283945.7501, 2]",
                    "[t, 0.3, 0.15000000000000000000, 3]");
            assertThatThrownBy(() -> s.run("INSERT INTO m VALUES (7, 'x', 1)", new SqlSession()))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22P02"));

        }
    }
}
