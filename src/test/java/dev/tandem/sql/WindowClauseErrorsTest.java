package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A window clause PostgreSQL refuses (a window function in HAVING, a frame whose ends are out of order) is refused with {@code 42P20} in PostgreSQL's words. */
class WindowClauseErrorsTest {

    private static final Map<String, String> REFUSED = Map.of(
            "SELECT id FROM w GROUP BY id HAVING sum(id) OVER () > 0", "window functions are not allowed in HAVING",
            "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM w", "frame start cannot be UNBOUNDED FOLLOWING",
            "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM w", "frame end cannot be UNBOUNDED PRECEDING",
            "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM w", "frame starting from current row cannot have preceding rows",
            "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM w", "frame starting from following row cannot end with current row",
            "SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM w", "frame starting from following row cannot have preceding rows",
            "SELECT sum(id) OVER (ORDER BY id, v RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w",
            "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column");

    @TempDir
    Path dir;

    @Test
    void windowClausesPostgresRefusesAreRefusedInItsWords() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE w (id bigint, v bigint)", new SqlSession());
            REFUSED.forEach((sql, message) -> assertThatThrownBy(() -> s.run(sql, new SqlSession())).as(sql)
                    .isInstanceOfSatisfying(SqlException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("42P20");
                        assertThat(e.getMessage()).isEqualTo(message);
                    }));
        }
    }
}
