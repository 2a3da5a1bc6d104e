package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
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

    /** A strict read: it sees every write acknowledged before it (a fresh session's serializable read may not). */
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
    void varcharArrayColumnsAreKeptAndEnforcedAfterARestart() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE va (k int PRIMARY KEY, v varchar(3)[], w character varying ARRAY, t text[], u varchar, c char(2))", new SqlSession());
            s.run("INSERT INTO va VALUES (1, '{ab,\"abc   \",NULL}', '{\"long one  \"}', '{x}', 'a  ', 'a')", new SqlSession());
        }
        for (int round = 0; round < 2; round++) {
            try (SqlStack s = new SqlStack(dir)) {
                assertThat(rows(s, "SELECT k, v, w, t, array_to_string(v, '|') FROM va WHERE k = 1"))
                        .containsExactly("[1, {ab,abc,NULL}, {\"long one  \"}, {x}, ab|abc]");
                assertThat(types(s, "SELECT v, w, t FROM va")).containsExactly("character varying(3)[]", "character varying[]", "string_array");
                // an unbounded varchar stays apart from text: compared with a char(n) as PostgreSQL compares it (as character), which is refused
                assertThat(rows(s, "SELECT u || '|' FROM va")).containsExactly("[a  |]");
                assertThatThrownBy(() -> s.run("SELECT k FROM va WHERE c = u", new SqlSession()))
                        .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
                assertThatThrownBy(() -> s.run("INSERT INTO va (k, v) VALUES (2, '{abcd}')", new SqlSession()))
                        .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22001"));
                assertThatThrownBy(() -> s.run("UPDATE va SET v = array_append(v, 'wxyz') WHERE k = 1", new SqlSession()))
                        .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22001"));
                s.run("INSERT INTO va (k, v) VALUES (" + (10 + round) + ", ARRAY['xy    '])", new SqlSession());
                assertThat(rows(s, "SELECT v FROM va WHERE k = " + (10 + round))).containsExactly("[{\"xy \"}]");
                s.run("DELETE FROM va WHERE k = " + (10 + round), new SqlSession());
                assertThat(rows(s, "SELECT count(*) FROM va")).containsExactly("[1]");
            }
        }
    }
}
