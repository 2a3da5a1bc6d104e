package dev.tandem.pgwire;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
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
}
