package dev.tandem.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RegexTest {

    private static boolean matches(String text, String pattern, String flags) {
        return Regex.compile(pattern, flags, false).matcher(text).find();
    }

    @Test
    void readsTheCommonSubsetAsPostgresDoes() {
        // $ is the end of the text only; . matches a newline
        assertThat(matches("ab\n", "b$", "")).isFalse();
        assertThat(matches("a\nb", "a.b", "")).isTrue();
        assertThat(matches("ABC", "b", "i")).isTrue();
        // case-insensitive and \w know ASCII letters only (the C locale)
        assertThat(matches("É", "é", "i")).isFalse();
        assertThat(matches("é", "\\w", "")).isFalse();
        assertThat(matches("a&b", "[&]", "")).isTrue();
        assertThat(matches("aaa", "^a{2,3}$", "")).isTrue();
    }

    @Test
    void refusesWhatJavaReadsDifferently() {
        assertThat(Regex.unsupported("[[:alpha:]]", "", false)).contains("POSIX classes");
        assertThat(Regex.unsupported("\\mword", "", false)).contains("\\m");
        assertThat(Regex.unsupported("(?i)a", "", false)).isNotNull();
        assertThat(Regex.unsupported("a|b", "", false)).isNull();
        assertThat(Regex.unsupported("a|b", "", true)).contains("alternation");
        assertThat(Regex.unsupported("a*?", "", true)).contains("non-greedy");
        assertThat(Regex.unsupported("a{", "", false)).isNotNull();
        assertThat(Regex.unsupported("[]a]", "", false)).isNotNull();
        assertThat(Regex.unsupported("a", "x", false)).isNotNull();
    }

    @Test
    void invalidPatternsAndOptionsAreErrorsWithPostgresWords() {
        assertThatThrownBy(() -> Regex.compile("(", "", false)).isInstanceOf(EvalError.class).hasMessage("invalid regular expression: parentheses () not balanced");
        assertThatThrownBy(() -> Regex.compile("*a", "", false)).hasMessage("invalid regular expression: quantifier operand invalid");
        assertThatThrownBy(() -> Regex.compile("a", "z", true)).hasMessage("invalid regular expression option: \"z\"");
        assertThatThrownBy(() -> Regex.compile("a{300}", "", false)).hasMessageContaining("invalid repetition count");
    }

    @Test
    void replacementsReadBackReferences() {
        assertThat(Regex.replace("hello world", "(\\w+) (\\w+)", "\\2 \\1 \\& \\\\ \\0", "")).isEqualTo("world hello hello world \\ \\0");
        assertThat(Regex.replace("abc", "x*", "-", "g")).isEqualTo("-a-b-c-");
        assertThat(Regex.replace("aXa", "a", "b", "")).isEqualTo("bXa");
    }
}
