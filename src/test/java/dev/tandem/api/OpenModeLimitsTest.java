package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.config.SqlConfiguration;
import dev.tandem.security.PrincipalLimits;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.MediaType;
import reactor.core.Disposable;

/**
 * Without credentials (open mode) the costly kinds of work are limited per client address, as they are per
 * principal with credentials: a client at its limit of slow-path reads is refused more of them (429 /
 * {@code 53400}, naming the address and the property), while its fast-path reads and another address's
 * slow-path reads answer.
 */
class OpenModeLimitsTest {

    @TempDir
    Path dir;

    private static Connection connect(int port, String localAddress) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tandem?user=tandem&localSocketAddress=" + localAddress);
    }

    @Test
    void anAddressAtItsLimitOfSlowPathReadsIsRefusedMoreWhileOthersGoOn() throws Exception {
        try (TandemServer t = new TandemServer(dir, Map.of("tandem.security.limits.max-pending-dataflows", 1, "tandem.pgwire.port", 0))) {
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/tables/t/rows", "{\"insert\":[[1],[2]]}").status()).isEqualTo(200);
            assertThat(t.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/views", "{\"name\":\"v\",\"plan\":{\"op\":\"get\",\"name\":\"t\"}}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(t, "t_by_id");
            PrincipalLimits limits = t.bean(PrincipalLimits.class);
            String local = "anonymous@127.0.0.1";
            String property = "tandem.security.limits.max-pending-dataflows";
            int pg = t.bean(SqlConfiguration.PgWireHolder.class).port();

            // a slow-path read at a time ten minutes ahead waits, holding its dataflow permit, until disposed
            Disposable waiting = t.client.post().uri("/v1/peek").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"from\":\"v\",\"as_of\":" + (System.currentTimeMillis() + 600_000) + ",\"timeout_ms\":300000}")
                    .retrieve().toBodilessEntity().subscribe(x -> { }, e -> { });
            try {
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held(local, PrincipalLimits.Kind.DATAFLOWS) == 1);
                assertThat(limits.held(local, PrincipalLimits.Kind.PEEKS)).as("reads in flight are not counted in open mode").isZero();

                TandemServer.Response refused = t.post("/v1/sql", "{\"sql\":\"SELECT id FROM v\"}");
                assertThat(refused.status()).as(refused.text()).isEqualTo(429);
                assertThat(refused.isProblem()).isTrue();
                assertThat(refused.text()).contains("'" + local + "' has 1 ", property);
                try (Connection c = connect(pg, "127.0.0.1"); Statement st = c.createStatement()) {
                    assertThatThrownBy(() -> st.executeQuery("SELECT id FROM v")).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("53400");
                        assertThat(e.getMessage()).contains(local, property);
                    });
                    try (ResultSet rs = st.executeQuery("SELECT id FROM t WHERE id = 2")) {
                        assertThat(rs.next()).as("a fast-path read needs no dataflow").isTrue();
                    }
                }
                // another loopback address is another client
                try (Connection c = connect(pg, "127.0.0.2"); Statement st = c.createStatement();
                        ResultSet rs = st.executeQuery("SELECT count(*) FROM v")) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).isEqualTo(2);
                }
            } finally {
                waiting.dispose();
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held(local, PrincipalLimits.Kind.DATAFLOWS) == 0);
            TandemServer.Response after = t.post("/v1/sql", "{\"sql\":\"SELECT id FROM v ORDER BY id\"}");
            assertThat(after.status()).as(after.text()).isEqualTo(200);
        }
    }
}
