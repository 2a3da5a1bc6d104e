package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Columns declared {@code char(n)} keep their declared type across a restart, as do a view's and a {@code CREATE TABLE
 * AS} table's columns over one: every write is still fitted to it (trailing spaces kept out, a longer value refused with
 * {@code 22001}), a read still answers it blank-padded and typed {@code character(n)}, and comparisons still ignore
 * trailing spaces.
 */
class CharColumnsRestartTest {

    @TempDir
    Path dir;

    private static List<String> rows(SqlStack s, String sql) {
        SqlSession strict = new SqlSession();
        strict.strict(true);
        SqlResult r = s.run(sql, strict);
        return r.rows().stream().map(row -> Arrays.stream(SqlColumn.output(row, r.columns())).map(SqlValues::text).toList().toString()).toList();
    }

    private static List<String> types(SqlStack s, String sql) {
        return s.run(sql, new SqlSession()).columns().stream().map(c -> c.declared() == null ? c.type().jsonName() : c.declared().sqlName()).toList();
    }

    @Test
    void charColumnsAreKeptAndEnforcedAfterARestart() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE c (k int PRIMARY KEY, a char(3), b character(5) DEFAULT 'x', e char, t text)", new SqlSession());
            s.run("INSERT INTO c (k, a, e, t) VALUES (1, 'ab  ', 'z', 'ab')", new SqlSession());
            s.run("CREATE VIEW cv AS SELECT k, a, b FROM c", new SqlSession());
            s.run("CREATE TABLE cc AS SELECT k, a FROM c", new SqlSession());
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                assertThat(rows(s, "SELECT k, a, b, e, a || '|', length(a), a::text FROM c WHERE k = 1"))
                        .containsExactly("[1, ab , x    , z, ab|, 2, ab]");
                assertThat(types(s, "SELECT a, b, e, t FROM c")).containsExactly("character(3)", "character(5)", "character(1)", "string");
                assertThat(types(s, "SELECT a, b FROM cv")).containsExactly("character(3)", "character(5)");
                assertThat(types(s, "SELECT a FROM cc")).containsExactly("character(3)");
                assertThat(rows(s, "SELECT a FROM cc")).containsExactly("[ab ]");
                assertThat(rows(s, "SELECT k FROM c WHERE a = 'ab     '")).containsExactly("[1]");
                assertThat(rows(s, "SELECT k FROM c WHERE a = t")).containsExactly("[1]");
                assertThatThrownBy(() -> s.run("INSERT INTO c (k, a) VALUES (2, 'abcd')", new SqlSession()))
                        .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22001"));
                s.run("INSERT INTO c (k, a) VALUES (" + (10 + round) + ", 'abc    ')", new SqlSession());
                assertThat(rows(s, "SELECT a FROM c WHERE k = " + (10 + round))).containsExactly("[abc]");
                s.run("DELETE FROM c WHERE k = " + (10 + round), new SqlSession());
                assertThat(rows(s, "SELECT count(*) FROM c")).containsExactly("[1]");
            }
        }
    }
}
