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
 * Array columns declared {@code numeric(p, s)[]} and {@code character(n)[]} keep their declared type across a restart: every
 * write still rounds each numeric element to the scale and refuses one past the precision ({@code 22003}) or holds each character
 * element to its length ({@code 22001}), an array of another type is still assigned element by element, the rows written before
 * read back as written (character elements blank-padded), and a read is still described as {@code numeric(p,s)[]} or
 * {@code character(n)[]}.
 */
class TypedArrayColumnsRestartTest {

    @TempDir
    Path dir;

    @Test
    void numericArrayColumnsAreKeptAndEnforcedAfterARestart() {
        afterRestarts(dir, List.of(
                "CREATE TABLE na (k int PRIMARY KEY, n numeric(5,2)[], m decimal(3)[], d numeric[], t text[])",
                "INSERT INTO na VALUES (1, '{1.005,NULL,-2}', '{1.5}', '{1.005}', '{x}')"), (s, round) -> {
            assertThat(rows(s, "SELECT k, n, m, d, t, array_to_string(n, '|') FROM na WHERE k = 1"))
                    .containsExactly("[1, {1.01,NULL,-2.00}, {2}, {1.005}, {x}, 1.01|-2.00]");
            assertThat(types(s, "SELECT n, m, d FROM na")).containsExactly("numeric(5,2)[]", "numeric(3,0)[]", "numeric_array");
            refused(s, "INSERT INTO na (k, n) VALUES (2, '{999.995}')", "22003");
            refused(s, "UPDATE na SET m = array_append(m, 1000) WHERE k = 1", "22003");
            int k = 10 + round;
            s.run("INSERT INTO na (k, n, t) VALUES (" + k + ", '{0.125,2.5}'::float8[], ARRAY[1, 2])", new SqlSession());
            assertThat(rows(s, "SELECT n, t FROM na WHERE k = " + k)).containsExactly("[{0.13,2.50}, {1,2}]");
            s.run("DELETE FROM na WHERE k = " + k, new SqlSession());
            assertThat(rows(s, "SELECT count(*) FROM na")).containsExactly("[1]");
        });
    }

    @Test
    void charArrayColumnsAreKeptAndEnforcedAfterARestart() {
        afterRestarts(dir, List.of(
                "CREATE TABLE ca (k int PRIMARY KEY, c char(3)[], e character ARRAY)",
                "INSERT INTO ca VALUES (1, '{a,\"ab   \",NULL}', '{x}')"), (s, round) -> {
            assertThat(rows(s, "SELECT k, c, e FROM ca WHERE k = 1")).containsExactly("[1, {\"a  \",\"ab \",NULL}, {x}]");
            assertThat(types(s, "SELECT c, e FROM ca")).containsExactly("character(3)[]", "character(1)[]");
            refused(s, "INSERT INTO ca (k, c) VALUES (2, '{abcd}')", "22001");
            refused(s, "SELECT c[1] FROM ca", "0A000");
            int k = 10 + round;
            s.run("INSERT INTO ca (k, c) VALUES (" + k + ", ARRAY[1, 22])", new SqlSession());
            assertThat(rows(s, "SELECT c FROM ca WHERE k = " + k)).containsExactly("[{\"1  \",\"22 \"}]");
            s.run("DELETE FROM ca WHERE k = " + k, new SqlSession());
            assertThat(rows(s, "SELECT count(*) FROM ca")).containsExactly("[1]");
        });
    }
}
