package dev.tandem.api;

import static dev.tandem.api.TandemServer.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code /v1/ws}: peeks correlated by id, index event subscriptions, malformed messages. */
class SessionSocketTest {

    @TempDir
    static Path dir;
    static TandemServer server;

    @BeforeAll
    static void start() {
        server = new TandemServer(dir, Map.of());
        server.post("/v1/tables", "{\"name\":\"kv\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"},{\"name\":\"v\",\"type\":\"string\"}]}");
        server.post("/v1/tables/kv/rows", "{\"insert\":[[1,\"one\"],[2,\"two\"],[3,\"three\"]]}");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static boolean op(JsonNode n, String op) {
        return op.equals(n.path("op").asString());
    }

    @Test
    void subscriptionSeesHydrationThenFrontiersAndPeeksAreCorrelatedById() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            ws.send("{\"op\":\"subscribe\",\"index\":\"kv_by_k\"}");
            JsonNode ack = ws.await(n -> op(n, "subscribed"));
            assertThat(ack.get("exists").booleanValue()).isFalse();
            assertThat(server.post("/v1/indexes", "{\"name\":\"kv_by_k\",\"on\":\"kv\",\"key\":[\"k\"]}").status()).isEqualTo(201);
            JsonNode hydrated = ws.await(n -> op(n, "event") && "hydrated".equals(n.get("kind").asString()));
            assertThat(hydrated.get("index").asString()).isEqualTo("kv_by_k");
            assertThat(hydrated.get("hydrated").booleanValue()).isTrue();
            long first = hydrated.get("write_frontier").longValue();
            JsonNode later = ws.await(n -> op(n, "event") && "frontier".equals(n.get("kind").asString()) && n.get("write_frontier").longValue() > first);
            assertThat(later.get("index").asString()).isEqualTo("kv_by_k");

            // Several peeks in flight; each answer carries its request's id.
            for (int k = 1; k <= 3; k++) {
                ws.send("{\"op\":\"peek\",\"id\":\"q" + k + "\",\"request\":{\"from\":\"kv_by_k\",\"key\":[[" + k + "]]}}");
            }
            ws.send("{\"op\":\"peek\",\"id\":7,\"request\":{\"from\":\"nope\"}}");
            String[] names = {"one", "two", "three"};
            for (int k = 1; k <= 3; k++) {
                String id = "q" + k;
                JsonNode r = ws.await(n -> op(n, "peek_result") && id.equals(n.get("id").asString()));
                assertThat(r.get("result").get("rows")).isEqualTo(json("[[" + k + ",\"" + names[k - 1] + "\"]]"));
                assertThat(r.get("result").get("path").asString()).isEqualTo("fast");
            }
            JsonNode err = ws.await(n -> op(n, "error") && n.path("id").isNumber());
            assertThat(err.get("id").intValue()).isEqualTo(7);
            assertThat(err.get("status").intValue()).isEqualTo(404);
            assertThat(err.get("detail").asString()).contains("no table, view or index named 'nope'");

            ws.send("{\"op\":\"unsubscribe\",\"index\":\"kv_by_k\"}");
            assertThat(ws.await(n -> op(n, "unsubscribed")).get("index").asString()).isEqualTo("kv_by_k");
        }
    }

    @Test
    void malformedMessagesAreAnsweredWithErrorsAndTheConnectionStaysOpen() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            String[] bad = {"not json", "[1,2]", "{}", "{\"op\":\"dance\"}", "{\"op\":\"peek\",\"id\":\"x\"}",
                    "{\"op\":\"peek\",\"id\":\"y\",\"request\":{\"from\":1}}", "{\"op\":\"peek\",\"id\":\"z\",\"request\":{\"frm\":\"kv\"}}",
                    "{\"op\":\"subscribe\"}", "{\"op\":\"subscribe\",\"index\":\"a\",\"extra\":1}", "{\"op\":\"unsubscribe\",\"index\":\"never\"}"};
            for (String m : bad) {
                ws.send(m);
                JsonNode e = ws.await(n -> op(n, "error"));
                assertThat(e.get("status").intValue()).as(m).isBetween(400, 499);
                assertThat(e.get("detail").asString()).as(m).isNotBlank();
            }
            ws.send("{\"op\":\"peek\",\"id\":\"ok\",\"request\":{\"from\":\"kv\",\"order_by\":[{\"col\":\"k\"}],\"limit\":1}}");
            JsonNode ok = ws.await(n -> op(n, "peek_result"));
            assertThat(ok.get("id").asString()).isEqualTo("ok");
            assertThat(ok.get("result").get("rows")).isEqualTo(json("[[1,\"one\"]]"));
        }
    }

    @Test
    void sqlStatementsRunOverTheSocketCorrelatedByIdWithErrorsAsProblems() {
        try (SocketClient ws = new SocketClient(server.port, "/v1/ws")) {
            ws.send("{\"op\":\"sql\",\"id\":\"ddl\",\"sql\":\"CREATE TABLE birds (id bigint NOT NULL, name text)\"}");
            JsonNode created = ws.await(n -> op(n, "sql_result") && "ddl".equals(n.get("id").asString()));
            assertThat(created.get("result")).isEqualTo(json("{\"command\":\"CREATE TABLE\"}"));

            ws.send("{\"op\":\"sql\",\"id\":1,\"sql\":\"INSERT INTO birds VALUES ($1, $2), (2, 'wren')\",\"params\":[1,\"robin\"]}");
            JsonNode inserted = ws.await(n -> op(n, "sql_result") && n.get("id").isNumber());
            assertThat(inserted.get("id").intValue()).isEqualTo(1);
            assertThat(inserted.get("result").get("command").asString()).isEqualTo("INSERT");
            assertThat(inserted.get("result").get("rows").intValue()).isEqualTo(2);
            long written = inserted.get("result").get("timestamp").longValue();

            // A strict read sees the write just acknowledged; the answer has the peek answer's shape.
            ws.send("{\"op\":\"sql\",\"id\":\"q\",\"sql\":\"SELECT name FROM birds WHERE id > $1 ORDER BY name\",\"params\":[0],"
                    + "\"isolation\":\"strict\"}");
            JsonNode rows = ws.await(n -> op(n, "sql_result") && "q".equals(n.get("id").asString())).get("result");
            assertThat(rows.get("columns")).isEqualTo(json("[\"name\"]"));
            assertThat(rows.get("rows")).isEqualTo(json("[[\"robin\"],[\"wren\"]]"));
            assertThat(rows.get("as_of").longValue()).isGreaterThanOrEqualTo(written);
            assertThat(rows.get("path").asString()).isEqualTo("slow");

            // A refused statement: an error with its SQLSTATE and position; the connection stays open.
            ws.send("{\"op\":\"sql\",\"id\":\"bad\",\"sql\":\"SELECT nope FROM birds\"}");
            JsonNode bad = ws.await(n -> op(n, "error") && "bad".equals(n.path("id").asString()));
            assertThat(bad.get("status").intValue()).isEqualTo(400);
            assertThat(bad.get("sqlstate").asString()).isEqualTo("42703");
            assertThat(bad.get("position").asString()).isEqualTo("1:8");
            ws.send("{\"op\":\"sql\",\"id\":\"sub\",\"sql\":\"SUBSCRIBE birds\"}");
            JsonNode sub = ws.await(n -> op(n, "error") && "sub".equals(n.path("id").asString()));
            assertThat(sub.get("sqlstate").asString()).isEqualTo("0A000");
            assertThat(sub.get("detail").asString()).contains("subscribe_rows");
            ws.send("{\"op\":\"sql\",\"id\":\"two\",\"sql\":\"SELECT 1; SELECT 2\"}");
            assertThat(ws.await(n -> op(n, "error") && "two".equals(n.path("id").asString())).get("status").intValue()).isEqualTo(400);
            ws.send("{\"op\":\"sql\",\"id\":\"no\"}");
            assertThat(ws.await(n -> op(n, "error") && "no".equals(n.path("id").asString())).get("status").intValue()).isEqualTo(400);

            ws.send("{\"op\":\"sql\",\"id\":\"count\",\"sql\":\"SELECT count(*) AS n FROM birds\",\"isolation\":\"strict\"}");
            JsonNode count = ws.await(n -> op(n, "sql_result") && "count".equals(n.get("id").asString())).get("result");
            assertThat(count.get("rows")).as("nothing changed by the refusals").isEqualTo(json("[[2]]"));
        }
    }
}
