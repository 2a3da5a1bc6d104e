package dev.tandem.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SimilarToTest {

    private static boolean similar(String text, String pattern, String escape) {
        return Regex.compile(SimilarTo.toRegex(pattern, escape), "", false).matcher(text).find();
    }

    @Test
    void translatesAsPostgresDoes() {
        assertThat(SimilarTo.toRegex("a%b_", null)).isEqualTo("^(?:a.*b.)$");
        assertThat(SimilarTo.toRegex("(a|b)+", null)).isEqualTo("^(?:(?:a|b)+)$");
        assertThat(SimilarTo.toRegex("a.b^$", null)).isEqualTo("^(?:a\\.b\\^\\$)$");
        assertThat(SimilarTo.toRegex("[%_]x", null)).isEqualTo("^(?:[%_]x)$");
        assertThat(SimilarTo.toRegex("a#%", "#")).isEqualTo("^(?:a\\%)$");
        assertThat(SimilarTo.toRegex("a\\%", "")).isEqualTo("^(?:a\\\\.*)$");
        assertThat(SimilarTo.toRegex("a#\"b#\"c", "#")).isEqualTo("^(?:a){1,1}?(b){1,1}(?:c)$");
    }

    @Test
    void matchesTheWholeText() {
        assertThat(similar("abc", "abc", null)).isTrue();
        assertThat(similar("abcd", "abc", null)).isFalse();
        assertThat(similar("xabc", "abc", null)).isFalse();
        assertThat(similar("abc", "a%", null)).isTrue();
        assertThat(similar("abc", "_b_", null)).isTrue();
        assertThat(similar("abc", "a|abc", null)).isTrue();
        assertThat(similar("abcabc", "(abc){2}", null)).isTrue();
        assertThat(similar("a.c", "a.c", null)).isTrue();
        assertThat(similar("abc", "a.c", null)).isFalse();
        assertThat(similar("a\nb", "a_b", null)).isTrue();
        assertThat(similar("a%", "a\\%", null)).isTrue();
        assertThat(similar("ab", "a\\%", null)).isFalse();
        assertThat(similar("a\\b", "a\\b", "")).isTrue();
        assertThat(similar("a1", "a\\d", null)).isTrue();
        assertThat(similar("A", "a", null)).isFalse();
    }

    @Test
    void refusesAnEscapeOfMoreThanOneCharacter() {
        assertThatThrownBy(() -> SimilarTo.toRegex("a", "xy")).isInstanceOf(EvalError.class).hasMessageContaining("invalid escape string");
        assertThatThrownBy(() -> SimilarTo.toRegex("#\"a#\"b#\"", "#")).isInstanceOf(EvalError.class).hasMessageStartingWith("not supported");
        assertThat(Regex.unsupported(SimilarTo.toRegex("[[:alpha:]]", null), "", false)).isNotNull();
    }
}
