package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** PostgreSQL's dollar-quoted strings: lexed as strings, written as standard strings for Calcite, read as values. */
class DollarQuotesTest {

    @TempDir
    java.nio.file.Path dir;

    @Test
    void dollarQuotesAreStringsWithoutEscapes() {
        assertThat(SqlLexer.standardQuotes("SELECT $$it's$$, $tag$a $$ b$tag$, $1, a$b FROM t"))
                .isEqualTo("SELECT 'it''s', 'a $$ b', $1, a$b FROM t");
        // inside quotes and comments a dollar quote is text
        String untouched = "SELECT '$$x$$', \"$$y$$\" -- $$z$$\nFROM t /* $q$ */";
        assertThat(SqlLexer.standardQuotes(untouched)).isEqualTo(untouched);
        List<SqlLexer.Token> t = new SqlLexer("x = $_1$a'b$_1$ + 1").tokens();
        assertThat(t.get(2).kind()).isEqualTo(SqlLexer.Kind.STRING);
        assertThat(t.get(2).text()).isEqualTo("a'b");
        assertThat(t.get(2).end()).isEqualTo("x = $_1$a'b$_1$".length());
        assertThatThrownBy(() -> SqlLexer.standardQuotes("SELECT $$abc"))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.getMessage()).contains("unterminated dollar-quoted string"));
    }

    @Test
    void dollarQuotedValuesAreReadWrittenAndLifted() {
        try (SqlStack s = new SqlStack(dir)) {
            SqlSession session = new SqlSession();
            s.run("CREATE TABLE q (k bigint, v text DEFAULT $d$none$d$)", session);
            s.run("INSERT INTO q VALUES (1, $$it's$$)", session);
            s.run("INSERT INTO q (k) VALUES (2)", session);
            assertThat(rows(s, "SELECT k, v FROM q WHERE v = $$it's$$", session)).containsExactly("[1, it's]");
            assertThat(rows(s, "SELECT k, v, $x$a$$b$x$ FROM q ORDER BY k", session))
                    .containsExactly("[1, it's, a$$b]", "[2, none, a$$b]");
        }
    }

    private static List<String> rows(SqlStack s, String sql, SqlSession session) {
        return s.run(sql, session).rows().stream().map(r -> Arrays.stream(r).map(SqlValues::text).toList().toString()).toList();
    }
}
