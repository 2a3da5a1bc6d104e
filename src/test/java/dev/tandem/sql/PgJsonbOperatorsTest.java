package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PgJsonbOperatorsTest {

    private static String rewrite(String sql) {
        return PgJsonbOperators.rewrite(sql).replaceAll(" +", " ").strip();
    }

    @Test
    void eachOperatorBecomesACall() {
        assertThat(rewrite("SELECT j -> 'a' FROM t")).isEqualTo("SELECT pg_jsonb_field(j, 'a') FROM t");
        assertThat(rewrite("j->>0")).isEqualTo("pg_jsonb_field_text(j, 0)");
        assertThat(rewrite("j -> -1")).isEqualTo("pg_jsonb_field(j, -1)");
        assertThat(rewrite("t.j #> '{a,0}'")).isEqualTo("pg_jsonb_path(t.j, '{a,0}')");
        assertThat(rewrite("j #>> '{a}'")).isEqualTo("pg_jsonb_path_text(j, '{a}')");
        assertThat(rewrite("a @> b AND b <@ a")).isEqualTo("pg_jsonb_contains(a, b) AND pg_jsonb_contained(b, a)");
        assertThat(rewrite("j ? 'k'")).isEqualTo("pg_jsonb_exists(j, 'k')");
    }

    @Test
    void operatorsChainLeftToRight() {
        assertThat(rewrite("j -> 'a' -> 0 ->> 'b'")).isEqualTo("pg_jsonb_field_text(pg_jsonb_field(pg_jsonb_field(j, 'a'), 0), 'b')");
        assertThat(rewrite("f(j) -> 'a' = '1'")).isEqualTo("pg_jsonb_field(f(j), 'a') = '1'");
    }

    @Test
    void castsToJsonbBecomeCalls() {
        assertThat(rewrite("CAST(x AS jsonb)")).isEqualTo("pg_jsonb(x)");
        assertThat(rewrite("jsonb '[1]'")).isEqualTo("pg_jsonb('[1]')");
        assertThat(rewrite(PgCasts.rewrite("'{}'::jsonb -> 'a'"))).isEqualTo("pg_jsonb_field(pg_jsonb('{}'), 'a')");
    }

    @Test
    void parametersQuotesAndCommentsAreLeftAlone() {
        assertThat(PgJsonbOperators.rewrite("SELECT a FROM t WHERE b = ? LIMIT ?")).isEqualTo("SELECT a FROM t WHERE b = ? LIMIT ?");
        assertThat(PgJsonbOperators.rewrite("SELECT a FROM t FETCH FIRST ? ROWS ONLY")).isEqualTo("SELECT a FROM t FETCH FIRST ? ROWS ONLY");
        assertThat(PgJsonbOperators.rewrite("SELECT 'a -> b' -- j -> 'x'\n")).isEqualTo("SELECT 'a -> b' -- j -> 'x'\n");
    }

    @Test
    void whatItCannotBindAsPostgresqlDoesIsRefused() {
        assertThatThrownBy(() -> PgJsonbOperators.rewrite("SELECT 'x' || j -> 'a'")).isInstanceOf(SqlException.class)
                .hasMessageContaining("parenthesize");
        assertThatThrownBy(() -> PgJsonbOperators.rewrite("SELECT j -> 0 + 1")).isInstanceOf(SqlException.class)
                .hasMessageContaining("parenthesize");
        assertThat(rewrite("SELECT j -> (0 + 1)")).isEqualTo("SELECT pg_jsonb_field(j, (0 + 1))");
        // ?| and ?& take a text[] (arrays are values)
        assertThat(rewrite("SELECT j ?| '{a}'")).isEqualTo("SELECT pg_jsonb_exists_any(j, '{a}')");
        assertThat(rewrite("SELECT j ?& '{a}'")).isEqualTo("SELECT pg_jsonb_exists_all(j, '{a}')");
        for (String refused : new String[] {"SELECT '{}'::json", "SELECT CAST(x AS json)", "SELECT jsonb_agg(j) FROM t"}) {
            assertThatThrownBy(() -> PgJsonbOperators.rewrite(PgCasts.rewrite(refused))).as(refused).isInstanceOf(SqlException.class)
                    .extracting(e -> ((SqlException) e).state()).isEqualTo(SqlException.NOT_SUPPORTED);
        }
    }
}
