package dev.tandem.sql;

import static dev.tandem.sql.RestartChecks.afterRestarts;
import static dev.tandem.sql.RestartChecks.refused;
import static dev.tandem.sql.RestartChecks.rows;
import static dev.tandem.sql.RestartChecks.types;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
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

    @Test
    void charColumnsAreKeptAndEnforcedAfterARestart() {
        afterRestarts(dir, List.of(
                "CREATE TABLE c (k int PRIMARY KEY, a char(3), b character(5) DEFAULT 'x', e char, t text)",
                "INSERT INTO c (k, a, e, t) VALUES (1, 'ab  ', 'z', 'ab')",
                "CREATE VIEW cv AS SELECT k, a, b FROM c",
                "CREATE TABLE cc AS SELECT k, a FROM c"), (s, round) -> {
            assertThat(rows(s, "SELECT k, a, b, e, a || '|', length(a), a::text FROM c WHERE k = 1"))
                    .containsExactly("[1, ab , x    , z, ab|, 2, ab]");
            assertThat(types(s, "SELECT a, b, e, t FROM c")).containsExactly("character(3)", "character(5)", "character(1)", "string");
            assertThat(types(s, "SELECT a, b FROM cv")).containsExactly("character(3)", "character(5)");
            assertThat(types(s, "SELECT a FROM cc")).containsExactly("character(3)");
            assertThat(rows(s, "SELECT a FROM cc")).containsExactly("[ab ]");
            assertThat(rows(s, "SELECT k FROM c WHERE a = 'ab     '")).containsExactly("[1]");
            assertThat(rows(s, "SELECT k FROM c WHERE a = t")).containsExactly("[1]");
            refused(s, "INSERT INTO c (k, a) VALUES (2, 'abcd')", "22001");
            s.run("INSERT INTO c (k, a) VALUES (" + (10 + round) + ", 'abc    ')", new SqlSession());
            assertThat(rows(s, "SELECT a FROM c WHERE k = " + (10 + round))).containsExactly("[abc]");
            s.run("DELETE FROM c WHERE k = " + (10 + round), new SqlSession());
            assertThat(rows(s, "SELECT count(*) FROM c")).containsExactly("[1]");
        });
    }
}
