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

/** A table's keys survive a restart (the durable log reopened, before and after it is compacted): still enforced, still indexed. */
class TableKeysRestartTest {

    @TempDir
    Path dir;

    private static List<String> rows(SqlStack s, String sql) {
        return s.run(sql, new SqlSession()).rows().stream().map(Arrays::toString).toList();
    }

    private static void refusedAsDuplicate(SqlStack s, String sql, String constraint) {
        assertThatThrownBy(() -> s.run(sql, new SqlSession())).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo("23505");
            assertThat(e.constraint()).isEqualTo(constraint);
        });
    }

    private static void awaitFastPath(SqlStack s, String sql, String index) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> rows(s, "EXPLAIN " + sql).get(0).contains("fast path: a lookup of key") && rows(s, "EXPLAIN " + sql).get(0).contains(index));
    }

    @Test
    void keysSurviveRestartAndCompaction() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint PRIMARY KEY, v text, UNIQUE (v))", new SqlSession());
            s.run("CREATE TABLE u (a bigint, b bigint UNIQUE)", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)", new SqlSession());
            s.run("INSERT INTO u VALUES (1, NULL), (2, NULL), (3, 7)", new SqlSession());
            refusedAsDuplicate(s, "INSERT INTO t VALUES (1, 'z')", "t_pkey");
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                refusedAsDuplicate(s, "INSERT INTO t VALUES (2, 'y')", "t_pkey");
                refusedAsDuplicate(s, "INSERT INTO t VALUES (9, 'a')", "t_v_key");
                refusedAsDuplicate(s, "INSERT INTO u VALUES (4, 7)", "u_b_key");
                s.run("INSERT INTO u VALUES (" + (10 + round) + ", NULL)", new SqlSession());
                awaitFastPath(s, "SELECT v FROM t WHERE id = 2", "t_pkey");
                assertThat(rows(s, "SELECT v FROM t WHERE id = 2")).containsExactly("[b]");
                assertThat(rows(s, "SELECT count(*) FROM t")).containsExactly("[3]");
                // the second round starts from the compacted log
                s.storage.compact();
            }
        }
    }
}
