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
 * Array columns declared {@code varchar(n)[]} and {@code varchar[]} keep their declared type across a restart: every
 * write still holds each element to the length ({@code 22001}, trailing spaces past it cut), the rows written before
 * read back as written, and a read is still described as {@code character varying(n)[]}; an unbounded {@code varchar} column is
 * still told from a {@code text} one.
 */
class VarcharArrayColumnsRestartTest {

    @TempDir
    Path dir;

    @Test
    void varcharArrayColumnsAreKeptAndEnforcedAfterARestart() {
        afterRestarts(dir, List.of(
                "CREATE TABLE va (k int PRIMARY KEY, v varchar(3)[], w character varying ARRAY, t text[], u varchar, c char(2))",
                "INSERT INTO va VALUES (1, '{ab,\"abc   \",NULL}', '{\"long one  \"}', '{x}', 'a  ', 'a')"), (s, round) -> {
            assertThat(rows(s, "SELECT k, v, w, t, array_to_string(v, '|') FROM va WHERE k = 1"))
                    .containsExactly("[1, {ab,abc,NULL}, {\"long one  \"}, {x}, ab|abc]");
            assertThat(types(s, "SELECT v, w, t FROM va")).containsExactly("character varying(3)[]", "character varying[]", "string_array");
            // an unbounded varchar stays apart from text: compared with a char(n) as PostgreSQL compares it (as character), which is refused
            assertThat(rows(s, "SELECT u || '|' FROM va")).containsExactly("[a  |]");
            refused(s, "SELECT k FROM va WHERE c = u", "0A000");
            refused(s, "INSERT INTO va (k, v) VALUES (2, '{abcd}')", "22001");
            refused(s, "UPDATE va SET v = array_append(v, 'wxyz') WHERE k = 1", "22001");
            s.run("INSERT INTO va (k, v) VALUES (" + (10 + round) + ", ARRAY['xy    '])", new SqlSession());
            assertThat(rows(s, "SELECT v FROM va WHERE k = " + (10 + round))).containsExactly("[{\"xy \"}]");
            s.run("DELETE FROM va WHERE k = " + (10 + round), new SqlSession());
            assertThat(rows(s, "SELECT count(*) FROM va")).containsExactly("[1]");
        });
    }
}
