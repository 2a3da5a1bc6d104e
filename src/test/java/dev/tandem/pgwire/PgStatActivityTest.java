package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pg_stat_activity} lists the server's wire-protocol sessions as PostgreSQL does: the reader itself
 * {@code active} with its own statement, another session {@code idle} with its last statement, or
 * {@code idle in transaction} inside a block, each with its user, application_name and start time; a
 * session gone is gone from it.
 */
class PgStatActivityTest {

    @TempDir
    Path dir;

    private static List<String> rows(Statement st, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= n; i++) {
                    row.add(rs.getString(i));
                }
                out.add(String.join("|", row));
            }
        }
        return out;
    }

    @Test
    void sessionsAreListedWithTheirStateAndStatement() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0)) {
            String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem";
            try (Connection viewer = DriverManager.getConnection(url + "?ApplicationName=viewer", "tandem", "");
                    Connection other = DriverManager.getConnection(url + "?ApplicationName=worker", "tandem", "");
                    Statement st = viewer.createStatement(); Statement os = other.createStatement()) {
                os.executeQuery("SELECT 42").close();
                String mine = "SELECT application_name, state, query, usename, datname, backend_type FROM pg_stat_activity "
                        + "WHERE pid = pg_backend_pid()";
                assertThat(rows(st, mine)).containsExactly("viewer|active|" + mine + "|tandem|tandem|client backend");
                String others = "SELECT application_name, state, query, backend_start IS NOT NULL, query_start IS NOT NULL "
                        + "FROM pg_stat_activity WHERE pid <> pg_backend_pid()";
                assertThat(rows(st, others)).containsExactly("worker|idle|SELECT 42|t|t");

                other.setAutoCommit(false);
                os.executeQuery("SELECT 7").close();
                assertThat(rows(st, "SELECT state, query FROM pg_stat_activity WHERE application_name = 'worker'"))
                        .containsExactly("idle in transaction|SELECT 7");
                assertThat(rows(st, "SELECT count(*) FROM pg_stat_activity")).containsExactly("2");
            }
            try (Connection alone = DriverManager.getConnection(url, "tandem", ""); Statement st = alone.createStatement()) {
                // the sessions closed above are gone (their close is seen shortly after the client's)
                long deadline = System.nanoTime() + 10_000_000_000L;
                List<String> count = rows(st, "SELECT count(*) FROM pg_stat_activity");
                while (!count.equals(List.of("1")) && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                    count = rows(st, "SELECT count(*) FROM pg_stat_activity");
                }
                assertThat(count).containsExactly("1");
            }
        }
    }
}
