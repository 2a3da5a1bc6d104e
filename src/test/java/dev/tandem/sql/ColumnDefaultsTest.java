package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Column defaults are kept in the durable catalog (they survive a restart, before and after the log is
 * compacted) and a default that is not a constant is refused. What PostgreSQL answers alike is in
 * {@code 13_defaults.slt}, which runs against both.
 */
class ColumnDefaultsTest {

    @TempDir
    Path dir;

    private static List<String> rows(SqlStack s, String sql) {
        return s.run(sql, strict()).rows().stream().map(Arrays::toString).toList();
    }

    private static SqlSession strict() {
        SqlSession strict = new SqlSession();
        strict.strict(true);
        return strict;
    }

    @Test
    void defaultsSurviveARestart() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE d (id bigint PRIMARY KEY, n bigint NOT NULL DEFAULT 0, s text DEFAULT 'x', f double precision DEFAULT 'NaN',"
                    + " b boolean DEFAULT false, t timestamp DEFAULT '2024-01-02 03:04:05.5')", new SqlSession());
            s.run("CREATE TABLE plain (id bigint)", new SqlSession());
            s.run("INSERT INTO d (id) VALUES (1)", new SqlSession());
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                s.run("INSERT INTO d (id) VALUES (" + (2 + round) + ")", new SqlSession());
                s.run("INSERT INTO plain VALUES (DEFAULT)", new SqlSession());
                assertThat(rows(s, "SELECT id, n, s, f, b FROM d ORDER BY id")).first().isEqualTo("[1, 0, x, NaN, false]");
                assertThat(rows(s, "SELECT n, s, b FROM d WHERE id = " + (2 + round))).containsExactly("[0, x, false]");
                assertThat(rows(s, "SELECT count(*) FROM d WHERE t = TIMESTAMP '2024-01-02 03:04:05.5'")).containsExactly("[" + (round + 2) + "]");
                assertThat(rows(s, "SELECT count(*) FROM plain WHERE id IS NULL")).containsExactly("[" + (round + 1) + "]");
                s.storage.compact();
            }
        }
    }

    @Test
    void aDefaultThatIsNotAConstantIsRefused() {
        try (SqlStack s = new SqlStack(dir)) {
            for (String sql : List.of("CREATE TABLE g (id bigint, t timestamp DEFAULT now() - interval '1 day')",
                    "CREATE TABLE g (id bigint DEFAULT 1 + 1)",
                    "CREATE TABLE g (id bigint DEFAULT (1))",
                    "CREATE TABLE g (id text DEFAULT current_user)")) {
                assertThatThrownBy(() -> s.run(sql, new SqlSession())).as(sql).isInstanceOfSatisfying(SqlException.class,
                        e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            }
            assertThatThrownBy(() -> s.run("CREATE TABLE g (id bigint DEFAULT 'abc')", new SqlSession()))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22P02"));
            assertThat(rows(s, "SHOW TABLES")).isEmpty();
        }
    }
}
