package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tandem.config.SqlConfiguration;
import dev.tandem.security.PrincipalLimits;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.Disposable;
import tools.jackson.databind.JsonNode;

/**
 * The per-principal limits of reads, on every surface that reads: {@code POST /v1/peek}, {@code POST
 * /v1/sql}, the WebSocket's {@code peek} and {@code sql} ops and the wire protocol all count against the
 * caller's reads in flight ({@code tandem.security.limits.max-concurrent-peeks}), and a slow-path read
 * also against its pending transient dataflows ({@code tandem.security.limits.max-pending-dataflows}).
 * Over a limit: 429 with {@code Retry-After} (the wire protocol {@code 53400}), counted by principal and
 * kind; other principals go on, and the permit comes back when the read ends.
 */
class PrincipalReadLimitsTest {

    @TempDir
    Path dir;

    /** A read of {@code from} at a time ten minutes ahead: it waits (holding its permits) until disposed. */
    private static Disposable waitingRead(SecuredServer s, String caller, String from) {
        long future = System.currentTimeMillis() + 600_000;
        return s.as(caller).post().uri("/v1/peek").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"from\":\"" + from + "\",\"as_of\":" + future + ",\"timeout_ms\":300000}")
                .retrieve().toBodilessEntity().subscribe(x -> { }, e -> { });
    }

    private static ResponseEntity<String> post(SecuredServer s, String caller, String uri, String body) {
        return s.as(caller).post().uri(uri).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchangeToMono(r -> r.toEntity(String.class)).block(Duration.ofSeconds(30));
    }

    private static void assertLimited(ResponseEntity<String> answer, String property) {
        assertThat(answer.getStatusCode().value()).as(answer.getBody()).isEqualTo(429);
        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        assertThat(answer.getHeaders().getContentType().isCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)).isTrue();
        assertThat(answer.getBody()).contains("'reader' has 1 ", property);
    }

    @Test
    void aPrincipalAtItsLimitOfPendingDataflowsIsRefusedSlowPathReadsOnEverySurfaceButNotFastOnes() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.limits.max-pending-dataflows", 1,
                "tandem.security.limits.max-concurrent-peeks", 10, "tandem.pgwire.port", 0))) {
            TandemServer t = s.server;
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/tables/t/rows", "{\"insert\":[[1],[2]]}").status()).isEqualTo(200);
            assertThat(t.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/views", "{\"name\":\"v\",\"plan\":{\"op\":\"get\",\"name\":\"t\"}}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(t, "t_by_id");
            PrincipalLimits limits = t.bean(PrincipalLimits.class);
            String property = "tandem.security.limits.max-pending-dataflows";

            Disposable waiting = waitingRead(s, "reader", "v");
            try {
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.DATAFLOWS) == 1);
                assertThat(limits.held("reader", PrincipalLimits.Kind.PEEKS)).as("a slow-path read is a read in flight too").isEqualTo(1);

                assertLimited(post(s, "reader", "/v1/peek", "{\"from\":\"v\"}"), property);
                assertLimited(post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id FROM v\"}"), property);
                try (SocketClient ws = new SocketClient(URI.create("ws://127.0.0.1:" + t.port + "/v1/ws"), s.bearer("reader"),
                        new ReactorNettyWebSocketClient())) {
                    ws.send("{\"op\":\"peek\",\"id\":1,\"request\":{\"from\":\"v\"}}");
                    JsonNode peek = ws.await(n -> n.path("id").asInt() == 1);
                    assertThat(peek.path("status").asInt()).as(peek.toString()).isEqualTo(429);
                    ws.send("{\"op\":\"sql\",\"id\":2,\"sql\":\"SELECT id FROM v\"}");
                    JsonNode sql = ws.await(n -> n.path("id").asInt() == 2);
                    assertThat(sql.path("status").asInt()).as(sql.toString()).isEqualTo(429);
                    assertThat(sql.path("sqlstate").asString()).isEqualTo("53400");
                    // A fast-path read needs no dataflow: it is answered.
                    ws.send("{\"op\":\"sql\",\"id\":3,\"sql\":\"SELECT id FROM t WHERE id = 1\"}");
                    JsonNode fast = ws.await(n -> n.path("id").asInt() == 3);
                    assertThat(fast.path("op").asString()).as(fast.toString()).isEqualTo("sql_result");
                }
                int pg = t.bean(SqlConfiguration.PgWireHolder.class).port();
                try (Connection c = SqlAccessMatrixTest.connect("127.0.0.1", pg, "reader", s.secrets.get("reader"), "");
                        Statement st = c.createStatement()) {
                    assertThatThrownBy(() -> st.executeQuery("SELECT id FROM v")).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("53400");
                        assertThat(e.getMessage()).contains(property);
                    });
                    try (var rs = st.executeQuery("SELECT id FROM t WHERE id = 2")) {
                        assertThat(rs.next()).isTrue();
                    }
                }
                assertThat(post(s, "reader", "/v1/peek", "{\"from\":\"t_by_id\",\"key\":[[1]]}").getStatusCode().value())
                        .as("a fast-path lookup").isEqualTo(200);
                assertThat(post(s, "writer", "/v1/sql", "{\"sql\":\"SELECT id FROM v\"}").getStatusCode().value())
                        .as("another principal's slow-path read").isEqualTo(200);
                assertThat(t.bean(MeterRegistry.class).counter("tandem.principal.limited", "principal", "reader", "kind", "dataflows").count())
                        .isEqualTo(5.0);
            } finally {
                waiting.dispose();
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.DATAFLOWS) == 0
                    && limits.held("reader", PrincipalLimits.Kind.PEEKS) == 0);
            assertThat(post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id FROM v\"}").getStatusCode().value()).isEqualTo(200);
        }
    }

    @Test
    void sqlQueriesCountAgainstThePrincipalsReadsInFlightOnEverySurface() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.limits.max-concurrent-peeks", 1, "tandem.pgwire.port", 0))) {
            TandemServer t = s.server;
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(t.post("/v1/indexes", "{\"name\":\"t_by_id\",\"on\":\"t\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            ApiJourneyTest.awaitHydrated(t, "t_by_id");
            PrincipalLimits limits = t.bean(PrincipalLimits.class);
            String property = "tandem.security.limits.max-concurrent-peeks";

            Disposable waiting = waitingRead(s, "reader", "t_by_id");
            try {
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.PEEKS) == 1);
                assertThat(limits.held("reader", PrincipalLimits.Kind.DATAFLOWS)).as("a fast-path read has no dataflow").isZero();
                assertLimited(post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id FROM t\"}"), property);
                assertLimited(s.as("reader").get().uri("/v1/indexes/t_by_id/rows?key=1").exchangeToMono(r -> r.toEntity(String.class))
                        .block(Duration.ofSeconds(30)), property);
                try (SocketClient ws = new SocketClient(URI.create("ws://127.0.0.1:" + t.port + "/v1/ws"), s.bearer("reader"),
                        new ReactorNettyWebSocketClient())) {
                    ws.send("{\"op\":\"sql\",\"id\":1,\"sql\":\"SELECT id FROM t\"}");
                    JsonNode sql = ws.await(n -> n.path("id").asInt() == 1);
                    assertThat(sql.path("status").asInt()).as(sql.toString()).isEqualTo(429);
                    ws.send("{\"op\":\"peek\",\"id\":2,\"request\":{\"from\":\"t\"}}");
                    JsonNode peek = ws.await(n -> n.path("id").asInt() == 2);
                    assertThat(peek.path("status").asInt()).as(peek.toString()).isEqualTo(429);
                    assertThat(peek.path("detail").asString()).contains(property);
                }
                int pg = t.bean(SqlConfiguration.PgWireHolder.class).port();
                try (Connection c = SqlAccessMatrixTest.connect("127.0.0.1", pg, "reader", s.secrets.get("reader"), "");
                        Statement st = c.createStatement()) {
                    assertThatThrownBy(() -> st.executeQuery("SELECT id FROM t")).isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("53400");
                        assertThat(e.getMessage()).contains(property);
                    });
                    assertThat(st.executeUpdate("SET transaction_isolation = 'serializable'")).as("a statement that reads nothing").isZero();
                }
                // Writes are no reads: a writer's INSERT and DDL by admin go on while the reader is limited.
                assertThat(post(s, "writer", "/v1/sql", "{\"sql\":\"INSERT INTO t VALUES (5)\"}").getStatusCode().value()).isEqualTo(200);
                assertThat(post(s, "admin", "/v1/sql", "{\"sql\":\"SELECT id FROM t\"}").getStatusCode().value()).isEqualTo(200);
            } finally {
                waiting.dispose();
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.PEEKS) == 0);
            ResponseEntity<String> after = post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id FROM t\"}");
            assertThat(after.getStatusCode().value()).as(after.getBody()).isEqualTo(200);
            assertThat(after.getBody().getBytes(StandardCharsets.UTF_8).length).isPositive();
        }
    }

    @Test
    void aPrincipalPlanningAtItsLimitIsRefusedOnEverySurfaceWhileItsCachedStatementsAnswer() throws Exception {
        try (SecuredServer s = new SecuredServer(dir, Map.of("tandem.security.limits.max-concurrent-plans", 1, "tandem.pgwire.port", 0))) {
            TandemServer t = s.server;
            assertThat(t.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            PrincipalLimits limits = t.bean(PrincipalLimits.class);
            String property = "tandem.security.limits.max-concurrent-plans";
            String cached = "{\"sql\":\"SELECT id FROM t WHERE id = 1\"}";
            assertThat(post(s, "reader", "/v1/sql", cached).getStatusCode().value()).isEqualTo(200);
            int pg = t.bean(SqlConfiguration.PgWireHolder.class).port();
            try (Connection c = SqlAccessMatrixTest.connect("127.0.0.1", pg, "reader", s.secrets.get("reader"), "")) {
                // a heavy statement plans for a while over the wire; a new statement of the same principal meanwhile is
                // refused (tried again with another heavy statement if the first was planned before the refusal was asked)
                boolean refused = false;
                for (int attempt = 0; attempt < 5 && !refused; attempt++) {
                    StringBuilder in = new StringBuilder("SELECT id FROM t WHERE id IN (");
                    for (int i = 0; i < 100_000; i++) {
                        in.append(i == 0 ? "" : ", ").append(i);
                    }
                    String heavy = in.append(") AND id > ").append(attempt).toString();
                    java.util.concurrent.CompletableFuture<Boolean> answered = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try (Statement st = c.createStatement()) {
                            return st.execute(heavy);
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    });
                    Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> limits.held("reader", PrincipalLimits.Kind.PLANS) == 1
                            || answered.isDone());
                    // a statement of a shape not planned before (one of a cached shape, as SELECT id FROM t WHERE id = 2, plans nothing)
                    ResponseEntity<String> answer = post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id AS a" + attempt + " FROM t\"}");
                    if (answer.getStatusCode().value() == 429) {
                        refused = true;
                        assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
                        assertThat(answer.getBody()).contains("'reader' has 1 statements being planned", property, "53400");
                        assertThat(post(s, "reader", "/v1/sql", cached).getStatusCode().value()).as("a cached statement plans nothing").isEqualTo(200);
                        assertThat(post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id FROM t WHERE id = 2\"}").getStatusCode().value())
                                .as("nor does a statement of a cached shape").isEqualTo(200);
                        assertThat(post(s, "writer", "/v1/sql", "{\"sql\":\"SELECT id AS w" + attempt + " FROM t\"}").getStatusCode().value())
                                .as("another principal's planning").isEqualTo(200);
                    }
                    assertThat(answered.get(300, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
                }
                assertThat(refused).as("refused while its heavy statement was planned").isTrue();
            }
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> limits.held("reader", PrincipalLimits.Kind.PLANS) == 0);
            assertThat(post(s, "reader", "/v1/sql", "{\"sql\":\"SELECT id FROM t WHERE id = 42\"}").getStatusCode().value()).isEqualTo(200);
        }
    }
}
