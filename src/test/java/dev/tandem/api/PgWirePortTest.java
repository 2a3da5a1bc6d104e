package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.config.SqlConfiguration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * {@code tandem.pgwire.port}: {@code 0} picks a free port and logs it (and psql or JDBC connect there),
 * {@code -1} turns the wire protocol off while HTTP (and {@code POST /v1/sql}) still serve.
 */
@ExtendWith(OutputCaptureExtension.class)
class PgWirePortTest {

    @TempDir
    Path dir;

    @Test
    void portZeroPicksAFreePortAndLogsIt(CapturedOutput output) throws Exception {
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.pgwire.port", 0))) {
            int port = s.context.getBean(SqlConfiguration.PgWireHolder.class).port();
            assertThat(port).isPositive().isNotEqualTo(6875);
            assertThat(output.getOut()).contains("PostgreSQL wire protocol listening on 127.0.0.1:" + port);
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tandem?user=me&sslmode=disable");
                    Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW transaction_isolation")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("serializable");
            }
        }
    }

    @Test
    void portMinusOneTurnsTheWireProtocolOff(CapturedOutput output) {
        // the build gives test servers tandem.pgwire.port=0 as a system property, which outranks a server's own properties
        String given = System.getProperty("tandem.pgwire.port");
        System.setProperty("tandem.pgwire.port", "-1");
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            assertThat(s.context.getBean(SqlConfiguration.PgWireHolder.class).port()).isEqualTo(-1);
            assertThat(output.getOut()).doesNotContain("PostgreSQL wire protocol listening");
            TandemServer.Response r = s.call(org.springframework.http.HttpMethod.POST, "/v1/sql", "{\"sql\":\"SHOW TABLES\"}");
            assertThat(r.status()).isEqualTo(200);
        } finally {
            if (given == null) {
                System.clearProperty("tandem.pgwire.port");
            } else {
                System.setProperty("tandem.pgwire.port", given);
            }
        }
    }
}
