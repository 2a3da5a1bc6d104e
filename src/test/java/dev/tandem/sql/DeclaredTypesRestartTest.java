package dev.tandem.sql;

import static dev.tandem.sql.RestartChecks.afterRestarts;
import static dev.tandem.sql.RestartChecks.refused;
import static dev.tandem.sql.RestartChecks.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Columns declared {@code integer}, {@code smallint}, {@code varchar(n)} and {@code numeric(p, s)} keep their
 * declared types, a view the integer types of its columns, and a table its CHECK constraints, across a restart: every write is still fitted to them (rounded, or refused with
 * PostgreSQL's SQLSTATE, writing nothing). {@code PostgresDeclaredTypesTest} compares them with PostgreSQL.
 */
class DeclaredTypesRestartTest {

    @TempDir
    Path dir;

    @Test
    void declaredTypesAreKeptAndEnforcedAfterARestart() {
        afterRestarts(dir, List.of(
                "CREATE TABLE d (k int PRIMARY KEY, s smallint, v varchar(3), n numeric(5, 2), r numeric(3, -1), b bigint,"
                        + " dv varchar(4) DEFAULT 'ab', dn numeric(4, 1) DEFAULT 1.25, CHECK (k < 1000), CONSTRAINT small CHECK (s < 100 OR s IS NULL))",
                "INSERT INTO d (k, s, v, n, r, b) VALUES (1, 7, 'ab  ', 1.005, 1234, 9223372036854775807)",
                "CREATE VIEW dv AS SELECT k, s, k + s AS ks, b FROM d"), (s, round) -> {
            assertThat(rows(s, "SELECT k, s, v, n, r, b, dv, dn FROM d WHERE k = 1"))
                    .containsExactly("[1, 7, ab , 1.01, 1230, 9223372036854775807, ab, 1.3]");
            refused(s, "INSERT INTO d (k) VALUES (2147483648)", "22003");
            refused(s, "INSERT INTO d (k, s) VALUES (2, -32769)", "22003");
            refused(s, "INSERT INTO d (k, v) VALUES (2, 'abcd')", "22001");
            refused(s, "INSERT INTO d (k, n) VALUES (2, 999.995)", "22003");
            refused(s, "INSERT INTO d (k, r) VALUES (2, 9995)", "22003");
            refused(s, "UPDATE d SET n = n * 1000 WHERE k = 1", "22003");
            // the CHECK constraints are kept too
            refused(s, "INSERT INTO d (k) VALUES (5000)", "23514");
            refused(s, "UPDATE d SET s = 101 WHERE k = 1", "23514");
            assertThat(rows(s, "SELECT count(*) FROM d")).as("nothing refused was written").containsExactly("[1]");
            s.run("INSERT INTO d (k, s, n) VALUES (" + (10 + round) + ", -32768, -999.994)", new SqlSession());
            assertThat(rows(s, "SELECT s, n FROM d WHERE k = " + (10 + round))).containsExactly("[-32768, -999.99]");
            s.run("DELETE FROM d WHERE k = " + (10 + round), new SqlSession());
            // a view's columns keep the integer types its query gave them
            SqlResult view = s.run("SELECT k, s, ks, b FROM dv", new SqlSession());
            assertThat(view.columns().stream().map(c -> c.declared() == null ? "bigint" : c.declared().sqlName()).toList())
                    .containsExactly("integer", "smallint", "integer", "bigint");
            refused(s, "SELECT ks + 2147483647 FROM dv", "22003");
        });
    }
}
