package dev.tandem.source.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PgCopyTextTest {

    private static Object[] fields(String line) {
        return PgCopyText.fields(line.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void splitsOnTabsAndDropsTheLineEnd() {
        assertThat(fields("1\tabc\t-2.5\n")).containsExactly("1", "abc", "-2.5");
        assertThat(fields("only")).containsExactly("only");
    }

    @Test
    void emptyFieldsAreEmptyStringsAndBackslashNIsNull() {
        assertThat(fields("\t\\N\t\n")).containsExactly("", null, "");
        assertThat(fields("\\N\n")).containsExactly((Object) null);
        assertThat(fields("\n")).containsExactly("");
    }

    @Test
    void undoesEveryEscape() {
        assertThat(fields("a\\tb\tc\\nd\\re\tf\\\\g\\bh\\fi\\vj\n"))
                .containsExactly("a\tb", "c\nd\re", "f\\g\bh\fi" + (char) 0x0b + "j");
        assertThat(fields("\\101\\x42\\7\\x4z\n")).containsExactly("AB" + (char) 7 + (char) 4 + "z");
        // an escaped backslash followed by N is the text \N, not NULL
        assertThat(fields("\\\\N\n")).containsExactly("\\N");
        // an unknown escape is the character itself
        assertThat(fields("\\q\n")).containsExactly("q");
    }

    @Test
    void decodesUtf8WithAndWithoutEscapes() {
        assertThat(fields("é\tü\\tß\t日本\n")).containsExactly("é", "ü\tß", "日本");
        // octal escapes of a multi-byte character's bytes
        assertThat(fields("\\303\\251\n")).containsExactly("é");
    }

    @Test
    void aTrailingBackslashIsKept() {
        Object[] f = PgCopyText.fields(new byte[] {'a', '\\'});
        assertThat(Arrays.asList(f)).containsExactly("a\\");
    }
}
