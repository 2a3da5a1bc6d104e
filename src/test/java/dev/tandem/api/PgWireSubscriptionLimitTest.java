package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.config.SqlConfiguration;
import dev.tandem.security.PrincipalLimits;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tandem.security.limits.max-subscriptions} reaches the wire protocol: a principal's SSE streams
 * and its wire-protocol SUBSCRIBE cursors share one count; over it a DECLARE is {@code 53400} naming the
 * property, and the permits come back when the transaction ends.
 */
class PgWireSubscriptionLimitTest {

    @TempDir
    Path dir;

    @Test
    void theWireProtocolSharesThePrincipalsSubscriptionLimit() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.limits.max-subscriptions", 2, "tandem.pgwire.port", 0))) {
            TandemServer t = s.server;
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            PrincipalLimits limits = t.bean(PrincipalLimits.class);
            int pg = t.bean(SqlConfiguration.PgWireHolder.class).port();
            String url = "jdbc:postgresql://127.0.0.1:" + pg + "/tandem?sslmode=disable&user=reader&password=" + s.secrets.get("reader");
            var sse = s.as("reader").get().uri("/v1/tables/t/changes").retrieve().bodyToFlux(String.class).subscribe(x -> { }, e -> { });
            try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS) == 1);
                c.setAutoCommit(false);
                st.execute("DECLARE a CURSOR FOR SUBSCRIBE t");
                assertThat(limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS)).isEqualTo(2);
                assertThatThrownBy(() -> st.execute("DECLARE b CURSOR FOR SUBSCRIBE t")).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo("53400");
                    assertThat(e.getMessage()).contains("tandem.security.limits.max-subscriptions");
                });
                c.rollback();
                assertThat(limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS)).as("ROLLBACK closed the cursor").isEqualTo(1);
            } finally {
                sse.dispose();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.SUBSCRIPTIONS) == 0);
        }
    }
}
