package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.controller.Controller;
import dev.tandem.controller.IndexStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.MapPropertySource;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.socket.client.ReactorNettyWebSocketClient;
import reactor.core.Disposable;
import tools.jackson.databind.JsonNode;

/**
 * Mistakes and departing clients over real HTTP on loopback: peeks of clients that go away are
 * cancelled and free their slots, far-future reads are refused, repeated keys read once, the live
 * compaction window reaches existing indexes, out-of-range floats and lone surrogates are refused,
 * offset and limit edges, problem bodies for refused request heads, oversized WebSocket messages, the
 * Content-Type requirement, the WebSocket Origin check, and health details hidden by default.
 */
class DataSafetyApiTest {

    @TempDir
    static Path dir;

    static TandemServer server;

    @BeforeAll
    static void start() {
        server = new TandemServer(dir, Map.of("tandem.compaction.window", "10m"));
        assertThat(server.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
        assertThat(server.post("/v1/tables/t/rows", "{\"insert\":[[1],[2],[3]]}").status()).isEqualTo(200);
        assertThat(server.post("/v1/indexes", "{\"name\":\"t_k\",\"on\":\"t\",\"key\":[\"k\"]}").status()).isEqualTo(201);
        await().atMost(Duration.ofSeconds(30)).until(() -> server.get("/v1/indexes/t_k").json().get("hydrated").asBoolean());
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static double peeksPending() {
        return server.bean(MeterRegistry.class).find("tandem.peeks.pending").gauges().stream().mapToDouble(Gauge::value).sum();
    }

    private static String futurePeek(long ahead) {
        return "{\"from\":\"t_k\",\"as_of\":" + (System.currentTimeMillis() + ahead) + ",\"timeout_ms\":600000}";
    }

    @Test
    void peeksOfClientsThatGoAwayAreCancelledAndFreeTheirSlots() {
        Controller controller = server.bean(Controller.class);
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            for (int i = 0; i < 20; i++) {
                ws.send("{\"op\":\"peek\",\"id\":" + i + ",\"request\":" + futurePeek(600_000) + "}");
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> controller.pendingReads() >= 20 && peeksPending() >= 20);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> controller.pendingReads() == 0 && peeksPending() == 0);

        Disposable http = server.client.post().uri("/v1/peek").contentType(MediaType.APPLICATION_JSON).bodyValue(futurePeek(600_000))
                .retrieve().bodyToMono(String.class).subscribe(x -> { }, e -> { });
        await().atMost(Duration.ofSeconds(20)).until(() -> controller.pendingReads() >= 1 && peeksPending() >= 1);
        http.dispose();
        await().atMost(Duration.ofSeconds(20)).until(() -> controller.pendingReads() == 0 && peeksPending() == 0);
    }

    @Test
    void oneConnectionMayNotHoldEveryReadSlot() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            for (int i = 0; i <= SessionSocketHandler.MAX_PENDING_PEEKS; i++) {
                ws.send("{\"op\":\"peek\",\"id\":" + i + ",\"request\":" + futurePeek(600_000) + "}");
            }
            JsonNode refused = ws.await(m -> m.path("op").asString().equals("error"));
            assertThat(refused.get("status").asInt()).isEqualTo(429);
            assertThat(refused.get("detail").asString()).contains("at most " + SessionSocketHandler.MAX_PENDING_PEEKS + " peeks");
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> server.bean(Controller.class).pendingReads() == 0 && peeksPending() == 0);
    }

    @Test
    void aReadFarBeyondThePresentIsRefusedAtOnce() {
        TandemServer.Response far = server.post("/v1/peek", futurePeek(7_200_000));
        assertThat(far.status()).isEqualTo(422);
        assertThat(far.isProblem()).isTrue();
        assertThat(far.json().get("detail").asString()).contains("beyond the present");
        assertThat(server.post("/v1/peek", "{\"from\":\"t_k\",\"timeout_ms\":3600000}").status()).isEqualTo(422);
    }

    @Test
    void repeatedKeysReadEachRowOnce() {
        assertThat(server.get("/v1/indexes/t_k/rows?key=2&key=2").json().get("rows").toString()).isEqualTo("[[2]]");
        assertThat(server.post("/v1/peek", "{\"from\":\"t_k\",\"key\":[[2],[2],[3]],\"order_by\":[{\"col\":\"k\"}]}").json().get("rows").toString())
                .isEqualTo("[[2],[3]]");
    }

    @Test
    void offsetAndLimitEdges() {
        assertThat(server.post("/v1/peek", "{\"from\":\"t_k\",\"limit\":0}").json().get("rows").toString()).isEqualTo("[]");
        TandemServer.Response huge = server.post("/v1/peek", "{\"from\":\"t_k\",\"offset\":9223372036854775807,\"limit\":9223372036854775807}");
        assertThat(huge.status()).isEqualTo(200);
        assertThat(huge.json().get("rows").toString()).isEqualTo("[]");
        TandemServer.Response negative = server.post("/v1/peek", "{\"from\":\"t_k\",\"limit\":-1}");
        assertThat(negative.status()).isIn(400, 422);
        assertThat(negative.json().get("detail").asString()).contains("limit");
    }

    @Test
    void theLiveCompactionWindowReachesExistingIndexes() {
        Controller controller = server.bean(Controller.class);
        assertThat(server.get("/v1/indexes/t_k").json().get("compaction_window_ms").asLong()).isEqualTo(600_000);
        JsonNode before = server.get("/v1/indexes/t_k").json();
        long upper = before.get("write_frontier").asLong();
        assertThat(before.get("since").asLong()).as("a 10 min window holds the index at its as_of").isLessThanOrEqualTo(before.get("as_of").asLong());

        server.context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("live", Map.of("tandem.compaction.window", "100ms")));
        try {
            server.context.publishEvent(new EnvironmentChangeEvent(server.context, Set.of("tandem.compaction.window")));
            assertThat(server.get("/v1/indexes/t_k").json().get("compaction_window_ms").asLong()).isEqualTo(100);
            await().atMost(Duration.ofSeconds(20)).until(() -> server.get("/v1/indexes/t_k").json().get("since").asLong() >= upper - 1000);
            await().atMost(Duration.ofSeconds(20)).until(() -> controller.introspection().stream().allMatch(s -> s.windowMillis() == 100
                    && s.since().time() >= upper - 1000));
        } finally {
            server.context.getEnvironment().getPropertySources().remove("live");
            server.context.publishEvent(new EnvironmentChangeEvent(server.context, Set.of("tandem.compaction.window")));
        }
        assertThat(controller.introspection()).extracting(IndexStatus::windowMillis).containsOnly(600_000L);
    }

    @Test
    void outOfRangeFloatsAndLoneSurrogatesAreRefusedAndChangeNothing() {
        assertThat(server.post("/v1/tables", "{\"name\":\"edges\",\"columns\":[{\"name\":\"f\",\"type\":\"float64\"},{\"name\":\"s\",\"type\":\"string\"}]}")
                .status()).isEqualTo(201);
        TandemServer.Response big = server.post("/v1/tables/edges/rows", "{\"insert\":[[1e400,\"a\"]]}");
        assertThat(big.status()).isEqualTo(422);
        assertThat(big.isProblem()).isTrue();
        assertThat(big.json().get("detail").asString()).contains("float64 range");
        TandemServer.Response surrogate = server.post("/v1/tables/edges/rows", "{\"insert\":[[1.5,\"x\\ud800y\"]]}");
        assertThat(surrogate.status()).isEqualTo(422);
        assertThat(surrogate.json().get("detail").asString()).contains("lone surrogate");
        assertThat(server.post("/v1/tables/edges/rows", "{\"insert\":[[\"Infinity\",\"\\ud83d\\ude00\"]]}").status()).isEqualTo(200);
        TandemServer.Response all = server.post("/v1/peek", "{\"from\":\"edges\",\"isolation\":\"strict\"}");
        assertThat(all.json().get("rows").toString()).isEqualTo("[[\"Infinity\",\"\uD83D\uDE00\"]]");
    }

    @Test
    void refusedRequestHeadsAnswerProblems() {
        TandemServer.Response longUri = server.get("/v1/ping?x=" + "a".repeat(20_000));
        assertThat(longUri.status()).isEqualTo(414);
        assertThat(longUri.isProblem()).isTrue();
        assertThat(longUri.json().get("status").asInt()).isEqualTo(414);
        TandemServer.Response bigHeaders = server.client.get().uri("/v1/ping").header("X-Big", "b".repeat(20_000))
                .exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("")
                        .map(t -> new TandemServer.Response(r.statusCode().value(), r.headers().contentType().orElse(null), TandemServer.json(t), t)))
                .block(Duration.ofSeconds(30));
        assertThat(bigHeaders.status()).isEqualTo(431);
        assertThat(bigHeaders.isProblem()).isTrue();
        assertThat(server.get("/v1/ping").status()).isEqualTo(200);
    }

    @Test
    void aPostWithoutJsonContentTypeIsRefused() {
        byte[] body = "{\"insert\":[[99]]}".getBytes(StandardCharsets.UTF_8);
        assertThat(server.call(HttpMethod.POST, "/v1/tables/t/rows", null, body).status()).isEqualTo(415);
        assertThat(server.call(HttpMethod.POST, "/v1/tables/t/rows", MediaType.TEXT_PLAIN, body).status()).isEqualTo(415);
        assertThat(server.post("/v1/peek", "{\"from\":\"t_k\",\"key\":[[99]],\"isolation\":\"strict\"}").json().get("rows").toString()).isEqualTo("[]");
    }

    @Test
    void anOversizedSocketMessageGetsAnErrorAndTheConnectionStaysOpen() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            ws.send("{\"op\":\"peek\",\"id\":1,\"pad\":\"" + "p".repeat(2 << 20) + "\"}");
            JsonNode error = ws.await(m -> m.path("op").asString().equals("error"));
            assertThat(error.get("status").asInt()).isEqualTo(413);
            ws.send("{\"op\":\"peek\",\"id\":2,\"request\":{\"from\":\"t_k\",\"key\":[[1]]}}");
            assertThat(ws.await(m -> m.path("op").asString().equals("peek_result")).at("/result/rows").toString()).isEqualTo("[[1]]");
        }
    }

    @Test
    void socketHandshakesFromOtherOriginsAreRefused() {
        URI uri = URI.create("ws://127.0.0.1:" + server.port + "/v1/ws");
        ReactorNettyWebSocketClient client = new ReactorNettyWebSocketClient();
        HttpHeaders evil = new HttpHeaders();
        evil.setOrigin("https://evil.example");
        assertThatThrownBy(() -> client.execute(uri, evil, session -> session.close()).block(Duration.ofSeconds(30)))
                .hasMessageContaining("403");
        HttpHeaders local = new HttpHeaders();
        local.setOrigin("http://localhost:" + server.port);
        client.execute(uri, local, session -> session.close()).block(Duration.ofSeconds(30));
        client.execute(uri, session -> session.close()).block(Duration.ofSeconds(30));
    }

    @Test
    void healthDetailsAreHiddenByDefaultAndProbesStillAnswer() {
        TandemServer.Response health = server.get("/actuator/health");
        assertThat(health.json().get("status").asString()).isEqualTo("UP");
        assertThat(health.json().at("/components/storage/status").asString()).isEqualTo("UP");
        assertThat(health.json().findValue("details")).as("no component shows details").isNull();
        assertThat(health.text()).doesNotContain(dir.toString()).doesNotContain("\"free\"").doesNotContain("threshold");
        assertThat(server.get("/actuator/health/readiness").json().get("status").asString()).isEqualTo("UP");
        assertThat(server.get("/actuator/health/liveness").json().get("status").asString()).isEqualTo("UP");
    }
}
