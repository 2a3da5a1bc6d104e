package dev.tandem.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** COPY FROM STDIN's formats, parsed as PostgreSQL reads them, and its bound on one COPY's size. */
class CopyInTest {

    @TempDir
    Path dir;

    @Test
    void textFormatReadsEscapesAndNulls() {
        assertThat(CopyIn.text("1\ta\\tb\t\\N\n2\t\\\\x\\n\\101\\x41\t\r\n\\.\nignored\n")).containsExactly(
                Arrays.asList("1", "a\tb", null), Arrays.asList("2", "\\x\nAA", ""));
    }

    @Test
    void csvReadsQuotesAndNulls() {
        assertThat(CopyIn.csv("1,\"a,\"\"b\"\"\",\n2,\"\",x\r\n3,\"multi\nline\",y")).containsExactly(
                Arrays.asList("1", "a,\"b\"", null), Arrays.asList("2", "", "x"), Arrays.asList("3", "multi\nline", "y"));
        assertThatThrownBy(() -> CopyIn.csv("1,\"open")).isInstanceOfSatisfying(SqlException.class,
                e -> assertThat(e.sqlState()).isEqualTo("22P04"));
    }

    @Test
    void oneCopyIsBoundedAndRefusedPastTheBoundWritesNothing() {
        try (SqlStack s = new SqlStack(dir)) {
            s.run("CREATE TABLE big (v text)", new SqlSession());
            SqlSession session = new SqlSession(true);
            SqlCopyIn copy = s.sql.copyIn("COPY big FROM STDIN", session);
            byte[] mb = new byte[1 << 20];
            Arrays.fill(mb, (byte) 'x');
            for (int i = 0; i < CopyIn.MAX_BYTES / mb.length; i++) {
                copy.data(mb);
            }
            assertThatThrownBy(() -> copy.data(new byte[] {'\n'})).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.sqlState()).isEqualTo("54000"));
            assertThat(s.run("SELECT count(*) FROM big", new SqlSession()).rows().get(0)[0]).isEqualTo(0L);
            assertThatThrownBy(() -> s.sql.copyIn("COPY big FROM '/etc/passwd'", session)).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            assertThatThrownBy(() -> s.sql.copyIn("COPY big (nope) FROM STDIN", new SqlSession(true))).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.sqlState()).isEqualTo("42703"));
        }
    }
}
