package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.CatalogEntry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CREATE UNIQUE INDEX} on a table holding rows: refused while they hold a key twice, then enforced at
 * every write (in a transaction block, at its COMMIT) under the index's name, through restarts of the durable
 * log before and after it is compacted, and an index that point lookups use; {@code DROP INDEX} lifts it. (What
 * the catalog shows of it, and the answers beside PostgreSQL's, are {@code PostgresUniqueIndexTest}'s.)
 */
class UniqueIndexRestartTest {

    @TempDir
    Path dir;

    private static List<String> rows(SqlStack s, String sql) {
        return s.run(sql, new SqlSession()).rows().stream().map(Arrays::toString).toList();
    }

    /** The unique indexes of the catalog, as "name (columns)", by name. */
    private static List<String> uniqueIndexes(SqlStack s) {
        return s.controller.catalog().stream().filter(e -> e instanceof CatalogEntry.Index i && i.unique())
                .map(e -> e.name() + " (" + String.join(", ", ((CatalogEntry.Index) e).key()) + ")").sorted().toList();
    }

    private static String tableId(SqlStack s) {
        return s.controller.catalog().stream().filter(e -> e.name().equals("t")).findFirst().orElseThrow().id();
    }

    private static void refused(SqlStack s, SqlSession session, String sql, String state, String message, String detail, String constraint) {
        assertThatThrownBy(() -> s.run(sql, session)).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo(state);
            assertThat(e.getMessage()).isEqualTo(message);
            assertThat(e.detail()).isEqualTo(detail);
            assertThat(e.constraint()).isEqualTo(constraint);
        });
    }

    private static void duplicate(SqlStack s, String sql, String index, String key) {
        refused(s, new SqlSession(), sql, "23505", "duplicate key value violates unique constraint \"" + index + "\"", "Key " + key + " already exists.", index);
    }

    @Test
    void aUniqueIndexChecksTheRowsThenEnforcesItsKeyThroughRestarts() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE t (id bigint, v text, n bigint)", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 1), (3, 'a', NULL), (4, NULL, NULL), (5, NULL, 2)", new SqlSession());
            refused(s, new SqlSession(), "CREATE UNIQUE INDEX t_v ON t (v)", "23505", "could not create unique index \"t_v\"", "Key (v)=(a) is duplicated.", "t_v");
            refused(s, new SqlSession(), "CREATE UNIQUE INDEX t_n ON t (n DESC)", "23505", "could not create unique index \"t_n\"",
                    "Key (n)=(1) is duplicated.", "t_n");
            assertThat(uniqueIndexes(s)).isEmpty();
            assertThat(s.storage.keys(tableId(s))).isEmpty();
            // NULLs are distinct: (3, 'a', NULL) and (4, NULL, NULL) hold no key of (n, id)
            s.run("CREATE UNIQUE INDEX t_id ON t (id)", new SqlSession());
            s.run("CREATE UNIQUE INDEX ON t (n, id)", new SqlSession());
            s.run("CREATE UNIQUE INDEX IF NOT EXISTS t_id ON t (v)", new SqlSession());
            duplicate(s, "INSERT INTO t VALUES (1, 'z', NULL)", "t_id", "(id)=(1)");
            assertThat(uniqueIndexes(s)).containsExactly("t_id (id)", "t_n_id_idx (n, id)");
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                duplicate(s, "INSERT INTO t VALUES (2, 'y', NULL)", "t_id", "(id)=(2)");
                duplicate(s, "UPDATE t SET id = 1 WHERE id = 5", "t_id", "(id)=(1)");
                s.run("INSERT INTO t VALUES (" + (10 + round) + ", 'a', NULL)", new SqlSession());
                SqlSession session = new SqlSession(true);
                s.run("BEGIN", session);
                s.run("INSERT INTO t VALUES (20, 'q', NULL)", session);
                s.run("INSERT INTO t VALUES (20, 'r', NULL)", session);
                refused(s, session, "COMMIT", "23505", "duplicate key value violates unique constraint \"t_id\"", "Key (id)=(20) already exists.", "t_id");
                assertThat(rows(s, "SELECT count(*) FROM t WHERE id = 20")).containsExactly("[0]");
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> rows(s, "EXPLAIN SELECT v FROM t WHERE id = 2").get(0).contains("fast path: a lookup of key")
                                && rows(s, "EXPLAIN SELECT v FROM t WHERE id = 2").get(0).contains("in index t_id"));
                assertThat(rows(s, "SELECT v FROM t WHERE id = 2")).containsExactly("[b]");
                assertThat(uniqueIndexes(s)).containsExactly("t_id (id)", "t_n_id_idx (n, id)");
                assertThat(s.storage.keys(tableId(s)).stream().map(k -> k.name() + " " + k.columns())).containsExactly("t_id [0]", "t_n_id_idx [2, 0]");
                // the second round starts from the compacted log
                s.storage.compact();
            }
        }
        try (SqlStack s = new SqlStack(dir)) {
            s.run("DROP INDEX t_id", new SqlSession());
            s.run("INSERT INTO t VALUES (1, 'again', NULL)", new SqlSession());
            duplicate(s, "INSERT INTO t VALUES (2, 'again', 1)", "t_n_id_idx", "(n, id)=(1, 2)");
        }
        try (SqlStack s = new SqlStack(dir)) {
            SqlSession writer = new SqlSession();
            s.run("INSERT INTO t VALUES (1, 'thrice', NULL)", writer);
            // a connection that wrote reads its own writes
            assertThat(s.run("SELECT count(*) FROM t WHERE id = 1", writer).rows().stream().map(Arrays::toString).toList()).containsExactly("[3]");
            refused(s, new SqlSession(), "CREATE UNIQUE INDEX t_id ON t (id)", "23505", "could not create unique index \"t_id\"", "Key (id)=(1) is duplicated.", "t_id");
            s.run("DROP TABLE t", new SqlSession());
            s.run("CREATE TABLE t (id bigint)", new SqlSession());
            s.run("INSERT INTO t VALUES (1), (1)", new SqlSession());
        }
    }
}
