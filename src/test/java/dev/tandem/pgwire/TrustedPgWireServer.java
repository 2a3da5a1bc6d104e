package dev.tandem.pgwire;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** A wire-protocol server over a fresh SQL stack, trusting every login, for the tests of a class; {@link #connect} reaches it through pgjdbc. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class TrustedPgWireServer {

    SqlTesting.Stack stack;
    PgWireServer server;

    @BeforeAll
    void start(@TempDir Path dir) {
        stack = SqlTesting.stack(dir);
        server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
    }

    @AfterAll
    void stop() {
        server.close();
        stack.close();
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=ada&sslmode=disable");
    }

    /** The rows {@code sql} answers (none, for a statement that answers no rows), each its values as text joined by spaces. */
    static List<String> rows(Statement s, String sql) throws SQLException {
        return rows(s, sql, " ");
    }

    /** The rows {@code sql} answers (none, for a statement that answers no rows), each its values as text joined by {@code separator}. */
    static List<String> rows(Statement s, String sql, String separator) throws SQLException {
        List<String> out = new ArrayList<>();
        if (s.execute(sql)) {
            try (ResultSet r = s.getResultSet()) {
                int n = r.getMetaData().getColumnCount();
                while (r.next()) {
                    List<String> row = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        row.add(String.valueOf(r.getString(i)));
                    }
                    out.add(String.join(separator, row));
                }
            }
        }
        return out;
    }
}
