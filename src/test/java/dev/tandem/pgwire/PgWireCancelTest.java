package dev.tandem.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.sql.SqlTesting;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A CancelRequest (JDBC's {@code Statement.cancel}, sent on a new connection) stops a query that is
 * waiting — a read as of a time 30 minutes ahead waits for that time — with SQLSTATE 57014, and the
 * connection goes on serving.
 */
class PgWireCancelTest {

    @TempDir
    Path dir;

    @Test
    void cancelStopsAWaitingQuery() throws Exception {
        try (SqlTesting.Stack stack = SqlTesting.stack(dir);
                PgWireServer server = PgWireServer.start(stack.engine(), PgAuthenticator.TRUST, "127.0.0.1", 0);
                Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tandem?user=u&sslmode=disable");
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (a bigint)");
            s.execute("INSERT INTO t VALUES (1)");
            long future = System.currentTimeMillis() + 30 * 60_000;
            CompletableFuture<Object> query = CompletableFuture.supplyAsync(() -> {
                try (ResultSet rs = s.executeQuery("SELECT a FROM t AS OF " + future)) {
                    return rs.next();
                } catch (SQLException e) {
                    return e;
                }
            });
            // a cancel that arrives before the query runs does nothing (as in PostgreSQL): wait until the read is in flight
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() -> stack.pendingReads() > 0);
            s.cancel();
            assertThat(query.get(20, TimeUnit.SECONDS)).isInstanceOfSatisfying(SQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("57014");
                assertThat(e.getMessage()).contains("canceling statement due to user request");
            });
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
        }
    }
}
