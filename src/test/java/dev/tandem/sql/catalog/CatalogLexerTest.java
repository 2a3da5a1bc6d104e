package dev.tandem.sql.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.catalog.CatalogToken.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogLexerTest {

    private static List<String> texts(String sql) {
        return CatalogLexer.lex(sql).stream().map(CatalogToken::text).toList();
    }

    @Test
    void quotedStringsAndIdentifiersKeepTheirDoubledQuotes() {
        List<CatalogToken> toks = CatalogLexer.lex("SELECT 'it''s', \"a\"\"b\" FROM t");
        assertThat(toks).extracting(CatalogToken::kind)
                .containsExactly(Kind.WORD, Kind.STRING, Kind.PUNCT, Kind.QUOTED, Kind.WORD, Kind.WORD);
        assertThat(toks.get(1).unquoted()).isEqualTo("it's");
        assertThat(toks.get(3).unquoted()).isEqualTo("a\"b");
        assertThat(toks.get(3).name()).isEqualTo("a\"b");
        assertThat(toks.get(4).name()).isEqualTo("from");
    }

    @Test
    void escapeStringsBecomePlainLiterals() {
        assertThat(texts("E'a\\nb\\'c''d'")).containsExactly("'a\nb''c''d'");
    }

    @Test
    void commentsParametersNumbersAndOperators() {
        assertThat(texts("a -- note\n/* more */ >= $12 + 1.5e3::int")).containsExactly("a", ">=", "12", "+", "1.5e3", "::", "int");
        // an operator of several characters ends in + or - only when it has one of ~ ! @ # % ^ & | ` ?
        assertThat(texts("a=-1")).containsExactly("a", "=", "-", "1");
        assertThat(texts("a@-1")).containsExactly("a", "@-", "1");
    }

    @Test
    void unterminatedQuotesAreSyntaxErrors() {
        assertThatThrownBy(() -> CatalogLexer.lex("SELECT 'abc")).isInstanceOf(SqlException.class).hasMessageContaining("unterminated quoted string");
        assertThatThrownBy(() -> CatalogLexer.lex("SELECT E'abc")).isInstanceOf(SqlException.class).hasMessageContaining("unterminated quoted string");
        assertThatThrownBy(() -> CatalogLexer.lex("SELECT \"abc")).isInstanceOf(SqlException.class)
                .hasMessageContaining("unterminated quoted identifier");
        assertThatThrownBy(() -> CatalogLexer.lex("SELECT 1 /* x")).isInstanceOf(SqlException.class).hasMessageContaining("unterminated /* comment");
    }
}
