package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** PostgreSQL's {@code ::} cast written as a CAST: what its operand is, where its type ends, what is left alone. */
class PgCastsTest {

    @Test
    void theOperandIsThePrimaryBeforeIt() {
        assertThat(PgCasts.rewrite("SELECT k::text FROM t")).isEqualTo("SELECT CAST(k AS text) FROM t");
        assertThat(PgCasts.rewrite("SELECT t.k::text")).isEqualTo("SELECT CAST(t.k AS text)");
        assertThat(PgCasts.rewrite("SELECT -1::text")).isEqualTo("SELECT -CAST(1 AS text)");
        assertThat(PgCasts.rewrite("SELECT a + b::int")).isEqualTo("SELECT a + CAST(b AS int)");
        assertThat(PgCasts.rewrite("SELECT (a + b)::int")).isEqualTo("SELECT CAST((a + b) AS int)");
        assertThat(PgCasts.rewrite("SELECT coalesce(a, 0)::text")).isEqualTo("SELECT CAST(coalesce(a, 0) AS text)");
        assertThat(PgCasts.rewrite("SELECT CASE WHEN a THEN 1 ELSE CASE WHEN b THEN 2 END END::text"))
                .isEqualTo("SELECT CAST(CASE WHEN a THEN 1 ELSE CASE WHEN b THEN 2 END END AS text)");
        assertThat(PgCasts.rewrite("SELECT 'it''s'::text, ? ::bigint")).isEqualTo("SELECT CAST('it''s' AS text), CAST(?  AS bigint)");
        assertThat(PgCasts.rewrite("SELECT a::int::text")).isEqualTo("SELECT CAST(CAST(a AS int) AS text)");
        assertThat(PgCasts.rewrite("WHERE (a)::int = 1")).isEqualTo("WHERE CAST((a) AS int) = 1");
    }

    @Test
    void theTypeRunsToTheEndOfItsName() {
        assertThat(PgCasts.rewrite("SELECT a::double precision / 2")).isEqualTo("SELECT CAST(a AS double precision) / 2");
        assertThat(PgCasts.rewrite("SELECT a::character varying(10), b::timestamp without time zone"))
                .isEqualTo("SELECT CAST(a AS character varying(10)), CAST(b AS timestamp without time zone)");
        assertThat(PgCasts.rewrite("SELECT a::\"text\" FROM t")).isEqualTo("SELECT CAST(a AS \"text\") FROM t");
    }

    @Test
    void quotesAndCommentsAreLeftAlone() {
        String s = "SELECT 'a::b', \"x::y\" -- c::d\nFROM t /* e::f */";
        assertThat(PgCasts.rewrite(s)).isEqualTo(s);
    }

    @Test
    void aCastWithoutOperandOrTypeIsASyntaxError() {
        assertThatThrownBy(() -> PgCasts.rewrite("SELECT ::int")).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.state()).isEqualTo(SqlException.SYNTAX));
        assertThatThrownBy(() -> PgCasts.rewrite("SELECT k:: FROM t")).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.getMessage()).isEqualTo("syntax error at or near \"FROM\""));
        assertThatThrownBy(() -> PgCasts.rewrite("SELECT k::")).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.getMessage()).isEqualTo("syntax error at end of input"));
    }
}
