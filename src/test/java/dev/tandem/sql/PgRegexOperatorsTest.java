package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PgRegexOperatorsTest {

    private static final String M = PgRegexOperators.MARKER;

    private static String rewrite(String sql) {
        return PgRegexOperators.rewrite(sql).replaceAll(" +", " ").strip();
    }

    @Test
    void eachOperatorBecomesAMarkedSimilarTo() {
        assertThat(rewrite("SELECT a FROM t WHERE s ~ 'x' AND b")).isEqualTo("SELECT a FROM t WHERE s SIMILAR TO 'x' ESCAPE '" + M + "~' AND b");
        assertThat(rewrite("s ~* $1")).isEqualTo("s SIMILAR TO $1 ESCAPE '" + M + "~*'");
        assertThat(rewrite("s !~ f(a, (b))")).isEqualTo("s NOT SIMILAR TO f(a, (b)) ESCAPE '" + M + "!~'");
        assertThat(rewrite("s!~*t.c")).isEqualTo("s NOT SIMILAR TO t.c ESCAPE '" + M + "!~*'");
        assertThat(rewrite("a ~ 'x' OR b !~ 'y'")).isEqualTo("a SIMILAR TO 'x' ESCAPE '" + M + "~' OR b NOT SIMILAR TO 'y' ESCAPE '" + M + "!~'");
    }

    @Test
    void quotesCommentsAndPrefixTildesAreLeftAlone() {
        assertThat(PgRegexOperators.rewrite("SELECT 'a ~ b' -- x ~ y\n")).isEqualTo("SELECT 'a ~ b' -- x ~ y\n");
        assertThat(PgRegexOperators.rewrite("SELECT ~ 5")).isEqualTo("SELECT ~ 5");
    }

    @Test
    void aPatternFollowedByAnotherOperatorIsRefused() {
        assertThatThrownBy(() -> PgRegexOperators.rewrite("SELECT s ~ 'a' || 'b'")).isInstanceOf(SqlException.class)
                .hasMessageContaining("parenthesize the pattern");
        assertThat(PgRegexOperators.rewrite("SELECT s ~ ('a' || 'b')")).contains("SIMILAR TO ('a' || 'b') ESCAPE");
    }
}
