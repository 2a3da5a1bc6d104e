package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import tools.jackson.databind.JsonNode;

/** Change streams over the real HTTP server: Server-Sent Events with resume, the WebSocket's subscribe_rows, limits, metrics, introspection. */
class ChangeStreamApiTest {

    @TempDir
    static Path dir;
    static TandemServer server;

    @BeforeAll
    static void start() {
        server = new TandemServer(dir, Map.of("tandem.subscribe.max-per-connection", 2, "tandem.subscribe.progress-interval", "100ms",
                // Resuming from an old timestamp needs it still readable, however slow the machine.
                "tandem.compaction.window", "1h"));
        server.post("/v1/tables", "{\"name\":\"kv\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"},{\"name\":\"v\",\"type\":\"string\"}]}");
        server.post("/v1/tables/kv/rows", "{\"insert\":[[1,\"one\"],[2,\"two\"]]}");
        server.post("/v1/indexes", "{\"name\":\"kv_k\",\"on\":\"kv\",\"key\":[\"k\"]}");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static final ParameterizedTypeReference<ServerSentEvent<String>> SSE = new ParameterizedTypeReference<>() {
    };

    private static Flux<ServerSentEvent<String>> sse(String uri, String lastEventId) {
        return server.oneShot.get().uri(uri).accept(MediaType.TEXT_EVENT_STREAM)
                .headers(h -> {
                    if (lastEventId != null) {
                        h.set("Last-Event-ID", lastEventId);
                    }
                })
                .retrieve().bodyToFlux(SSE);
    }

    private static long write(String body) {
        return server.post("/v1/tables/kv/rows", body).json().get("timestamp").longValue();
    }

    private static boolean op(JsonNode n, String op) {
        return op.equals(n.path("op").asString());
    }

    /** Events other than progress, collected from a stream until {@code count} arrived. */
    private static List<ServerSentEvent<String>> changes(String uri, String lastEventId, int count, Runnable afterFirst) {
        List<ServerSentEvent<String>> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        reactor.core.Disposable d = sse(uri, lastEventId).filter(e -> e.data() != null && !e.data().contains("\"progress\"")).take(count)
                .subscribe(got::add);
        try {
            if (afterFirst != null) {
                await().atMost(Duration.ofSeconds(30)).until(() -> !got.isEmpty());
                afterFirst.run();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == count);
            return got;
        } finally {
            d.dispose();
        }
    }

    @Test
    void serverSentEventsStreamTheSnapshotThenChangesAndResumeAfterTheLastEventId() {
        long before = write("{\"insert\":[[3,\"three\"]]}");
        String uri = "/v1/indexes/kv_k/changes?key=1&key=3&as_of=" + before;
        long[] written = new long[1];
        List<ServerSentEvent<String>> events = changes(uri, null, 2,
                () -> written[0] = write("{\"insert\":[[1,\"uno\"],[2,\"dos\"]],\"delete\":[[1,\"one\"]]}"));
        JsonNode snapshot = TandemServer.json(events.get(0).data());
        assertThat(snapshot.get("timestamp").longValue()).isEqualTo(before);
        assertThat(snapshot.get("updates")).isEqualTo(TandemServer.json("[[[1,\"one\"],1],[[3,\"three\"],1]]"));
        assertThat(events.get(0).id()).isEqualTo(Long.toString(before));
        JsonNode change = TandemServer.json(events.get(1).data());
        assertThat(change.get("timestamp").longValue()).isEqualTo(written[0]);
        assertThat(change.get("updates")).as("only the watched keys").isEqualTo(TandemServer.json("[[[1,\"one\"],-1],[[1,\"uno\"],1]]"));
        assertThat(events.get(1).id()).isEqualTo(Long.toString(written[0]));
        // Reconnecting after the snapshot's event: exactly the change not yet seen, no snapshot.
        List<ServerSentEvent<String>> resumed = changes(uri, events.get(0).id(), 1, null);
        assertThat(TandemServer.json(resumed.get(0).data())).isEqualTo(change);
        // Progress events carry the last complete timestamp as their id.
        StepVerifier.create(sse(uri, null).filter(e -> e.data() != null && e.data().contains("\"progress\"")).take(1))
                .assertNext(e -> assertThat(Long.parseLong(e.id())).isEqualTo(TandemServer.json(e.data()).get("progress").longValue() - 1))
                .expectComplete()
                .verify(Duration.ofSeconds(60));
    }

    @Test
    void malformedStreamRequestsAreProblems() {
        TandemServer.Response unknown = server.get("/v1/indexes/nope/changes");
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.isProblem()).isTrue();
        TandemServer.Response param = server.get("/v1/indexes/kv_k/changes?snapshot=maybe");
        assertThat(param.status()).isEqualTo(400);
        assertThat(param.isProblem()).isTrue();
        assertThat(server.get("/v1/indexes/kv_k/changes?envelope=json").status()).isEqualTo(400);
        assertThat(server.get("/v1/indexes/kv_k/changes?key=x").status()).isEqualTo(422);
        assertThat(server.get("/v1/indexes/kv_k/changes?colour=red").status()).isEqualTo(400);
        assertThat(server.get("/v1/indexes/kv_k/changes?as_of=1").status()).as("before the compaction frontier").isEqualTo(409);
    }

    @Test
    void theWebSocketStreamsRowsByIdUntilCancelledWithinThePerConnectionLimit() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            // At the write's time: a serializable start may lie before a write just acknowledged.
            long five = write("{\"insert\":[[5,\"five\"]]}");
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"a\",\"from\":\"kv_k\",\"key\":[[5]],\"project\":[\"v\"],\"as_of\":" + five + "}");
            JsonNode ack = ws.await(n -> op(n, "rows_subscribed"));
            assertThat(ack.get("id").asString()).isEqualTo("a");
            assertThat(ack.get("columns")).isEqualTo(TandemServer.json("[\"v\"]"));
            JsonNode snapshot = ws.await(n -> op(n, "changes") && "a".equals(n.get("id").asString()));
            assertThat(snapshot.get("timestamp").longValue()).isEqualTo(ack.get("as_of").longValue());
            assertThat(snapshot.get("updates").size()).isEqualTo(1);
            ws.await(n -> op(n, "progress") && "a".equals(n.get("id").asString()));
            long t = write("{\"insert\":[[5,\"fünf\"]]}");
            JsonNode change = ws.await(n -> op(n, "changes") && n.get("timestamp").longValue() == t);
            assertThat(change.get("updates")).isEqualTo(TandemServer.json("[[[\"fünf\"],1]]"));

            // At t: a serializable start may lie before it, and the change at t (a second row of key 5) would end an upsert stream.
            ws.send("{\"op\":\"subscribe_rows\",\"id\":7,\"from\":\"kv_k\",\"envelope\":\"upsert\",\"snapshot\":false,\"as_of\":" + t + "}");
            assertThat(ws.await(n -> op(n, "rows_subscribed") && n.get("id").intValue() == 7).get("index").asString()).isEqualTo("kv_k");
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"c\",\"from\":\"kv_k\"}");
            JsonNode limited = ws.await(n -> op(n, "error") && "c".equals(n.path("id").asString()));
            assertThat(limited.get("status").intValue()).isEqualTo(429);
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"a\",\"from\":\"kv_k\"}");
            assertThat(ws.await(n -> op(n, "error") && "a".equals(n.path("id").asString())).get("status").intValue()).isEqualTo(400);

            ws.send("{\"op\":\"cancel_rows\",\"id\":\"a\"}");
            ws.await(n -> op(n, "rows_canceled") && "a".equals(n.get("id").asString()));
            ws.send("{\"op\":\"cancel_rows\",\"id\":\"a\"}");
            assertThat(ws.await(n -> op(n, "error") && "a".equals(n.path("id").asString())).get("status").intValue()).isEqualTo(400);
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"d\",\"from\":\"nope\"}");
            assertThat(ws.await(n -> op(n, "error") && "d".equals(n.path("id").asString())).get("status").intValue()).isEqualTo(404);
            // A slot is free again.
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"e\",\"from\":\"kv_k\",\"key\":[[1]],\"envelope\":\"upsert\"}");
            JsonNode upsert = ws.await(n -> op(n, "changes") && "e".equals(n.path("id").asString()));
            assertThat(upsert.get("updates").get(0).get(0)).isEqualTo(TandemServer.json("[1]"));
        }
    }

    @Test
    void metricsAndIntrospectionShowSubscriptionsMessagesAndBytes() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            ws.send("{\"op\":\"subscribe_rows\",\"id\":1,\"from\":\"kv_k\"}");
            ws.await(n -> op(n, "progress"));
            String metrics = server.get("/actuator/prometheus").text();
            List<String> names = List.of("tandem_subscriptions_active", "tandem_subscription_messages_total", "tandem_subscription_bytes_total",
                    "tandem_subscriptions_lagged_total", "tandem_subscription_lag_max_seconds");
            names.forEach(n -> assertThat(metrics).contains(n));
            assertThat(metrics).containsPattern("tandem_subscriptions_active(\\{[^}]*\\})? [1-9]");
            assertThat(metrics).containsPattern("tandem_subscription_bytes_total(\\{[^}]*\\})? [1-9]");
            // The subscription shows in introspection, with what it has sent.
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (JsonNode r : server.get("/v1/introspection/tandem_subscriptions").json().get("rows")) {
                    if (r.get(1).asString().equals("kv_k") && r.get(2).asString().equals("ws 1") && r.get(6).longValue() > 0) {
                        return true;
                    }
                }
                return false;
            });
        }
    }

    @Test
    void viewsAndTablesWithoutAnIndexStreamThroughADataflowOfTheirOwn() {
        server.post("/v1/sql", "{\"sql\":\"CREATE TABLE pets (id bigint NOT NULL, legs bigint)\"}");
        server.post("/v1/sql", "{\"sql\":\"CREATE VIEW legs AS SELECT legs, count(*) AS n FROM pets GROUP BY legs\"}");
        long first = server.post("/v1/sql", "{\"sql\":\"INSERT INTO pets VALUES (1, 4), (2, 4), (3, 2)\"}").json().get("timestamp").longValue();
        // Server-Sent Events of the view: the snapshot, then the change to the group a write touches.
        long[] written = new long[1];
        List<ServerSentEvent<String>> events = changes("/v1/views/legs/changes?as_of=" + first, null, 2,
                () -> written[0] = server.post("/v1/sql", "{\"sql\":\"INSERT INTO pets VALUES (4, 2)\"}").json().get("timestamp").longValue());
        JsonNode snapshot = TandemServer.json(events.get(0).data());
        assertThat(snapshot.get("timestamp").longValue()).isEqualTo(first);
        assertThat(snapshot.get("updates")).isEqualTo(TandemServer.json("[[[2,1],1],[[4,2],1]]"));
        JsonNode change = TandemServer.json(events.get(1).data());
        assertThat(change.get("timestamp").longValue()).isEqualTo(written[0]);
        assertThat(change.get("updates")).isEqualTo(TandemServer.json("[[[2,1],-1],[[2,2],1]]"));

        // The WebSocket's subscribe_rows on the table, with a filter: the rows, then the transient dataflow goes away with the stream.
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"p\",\"from\":\"pets\",\"project\":[\"id\"],\"as_of\":" + written[0]
                    + ",\"filter\":[{\"call\":\"eq\",\"args\":[{\"col\":1},{\"lit\":2}]}]}");
            JsonNode ack = ws.await(n -> op(n, "rows_subscribed") && "p".equals(n.get("id").asString()));
            assertThat(ack.get("index").asString()).isEqualTo("pets");
            assertThat(ack.get("columns")).isEqualTo(TandemServer.json("[\"id\"]"));
            JsonNode rows = ws.await(n -> op(n, "changes") && "p".equals(n.get("id").asString()));
            assertThat(rows.get("updates")).isEqualTo(TandemServer.json("[[[3],1],[[4],1]]"));
            ws.send("{\"op\":\"subscribe_rows\",\"id\":\"u\",\"from\":\"pets\",\"envelope\":\"upsert\"}");
            JsonNode upsert = ws.await(n -> op(n, "error") && "u".equals(n.path("id").asString()));
            assertThat(upsert.get("status").intValue()).isEqualTo(400);
            assertThat(upsert.get("detail").asString()).contains("envelope upsert needs a key");
            ws.send("{\"op\":\"cancel_rows\",\"id\":\"p\"}");
            ws.await(n -> op(n, "rows_canceled") && "p".equals(n.get("id").asString()));
        }
        // Keys need an index; the kinds of the path and of the object must agree.
        assertThat(server.get("/v1/views/legs/changes?key=2").status()).isEqualTo(422);
        assertThat(server.get("/v1/views/pets/changes").status()).isEqualTo(404);
        // SUBSCRIBE over POST /v1/sql is a clear 4xx pointing to the streaming surfaces.
        TandemServer.Response sub = server.post("/v1/sql", "{\"sql\":\"SUBSCRIBE legs\"}");
        assertThat(sub.status()).isEqualTo(400);
        assertThat(sub.isProblem()).isTrue();
        assertThat(sub.json().get("sqlstate").asString()).isEqualTo("0A000");
        assertThat(sub.json().get("detail").asString()).contains("/v1/views/{name}/changes").contains("subscribe_rows");
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (JsonNode r : server.get("/v1/introspection/tandem_subscriptions").json().get("rows")) {
                if (r.get(1).asString().equals("pets") || r.get(1).asString().equals("legs")) {
                    return false;
                }
            }
            return true;
        });
    }
}
