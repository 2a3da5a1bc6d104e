package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.row.DatumType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which literals a query's shape lifts into parameters, and which it must leave as written. */
class SqlLiteralsTest {

    @Test
    void integersAndPlainStringsBecomeParameters() {
        SqlLiterals.Lifted l = SqlLiterals.lift("SELECT id, v FROM points WHERE id = 42 AND name = 'o''k' LIMIT 10");
        assertThat(l.shape()).isEqualTo("SELECT id, v FROM points WHERE id = $1 AND name = $2 LIMIT $3");
        assertThat(l.values()).containsExactly(42L, "o'k", 10L);
        assertThat(l.types()).containsExactly(DatumType.INT64, DatumType.STRING, DatumType.INT64);
        assertThat(SqlLiterals.lift("select * from t where id in (1, 2,3);").shape()).isEqualTo("select * from t where id in ($1, $2,$3);");
    }

    @Test
    void ordinalsAndLiteralsOfOtherMeaningsStay() {
        // ORDER BY and GROUP BY ordinals name columns; the LIMIT after them is a value again
        SqlLiterals.Lifted l = SqlLiterals.lift("SELECT g, count(*) FROM t WHERE v > 5 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 3");
        assertThat(l.shape()).isEqualTo("SELECT g, count(*) FROM t WHERE v > $1 GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2");
        // an ORDER BY inside parentheses ends with them
        assertThat(SqlLiterals.lift("SELECT * FROM (SELECT a FROM t ORDER BY 1 LIMIT 2) s WHERE a = 7").shape())
                .isEqualTo("SELECT * FROM (SELECT a FROM t ORDER BY 1 LIMIT $1) s WHERE a = $2");
        // decimals, exponents, integers beyond bigint, escape and Unicode strings are not lifted
        assertThat(SqlLiterals.lift("SELECT * FROM t WHERE a < 2.5 AND b = 1e5 AND c = 12345678901234567890 AND d = E'x' AND e = U&'y'"))
                .isNull();
        // statements with parameters of their own, and anything but a SELECT
        assertThat(SqlLiterals.lift("SELECT * FROM t WHERE a = $1 AND b = 2")).isNull();
        assertThat(SqlLiterals.lift("INSERT INTO t VALUES (1)")).isNull();
        assertThat(SqlLiterals.lift("EXPLAIN SELECT * FROM t WHERE a = 1")).isNull();
        assertThat(SqlLiterals.lift("SELECT a FROM t")).isNull();
        // comments and quoted identifiers are left alone
        assertThat(SqlLiterals.lift("SELECT \"1\" FROM t -- 5\nWHERE a = 6").shape()).isEqualTo("SELECT \"1\" FROM t -- 5\nWHERE a = $1");
        assertThat(SqlLiterals.lift("SELECT 'unterminated")).isNull();
    }

    @Test
    void aStatementWithManyLiteralsIsPlannedAsWritten() {
        StringBuilder b = new StringBuilder("SELECT id FROM t WHERE id IN (");
        for (int i = 0; i < SqlLiterals.MAX_LIFTED; i++) {
            b.append(i == 0 ? "" : ", ").append(i);
        }
        SqlLiterals.Lifted l = SqlLiterals.lift(b + ")");
        assertThat(l.values()).hasSize(SqlLiterals.MAX_LIFTED);
        assertThat(l.shape()).endsWith(", $" + SqlLiterals.MAX_LIFTED + ")");
        assertThat(SqlLiterals.lift(b + ", 100)")).isNull();
    }
}
