package dev.tandem.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.TandemApplication;
import dev.tandem.multiplex.Multiplexer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Over HTTP, with a dataflow memory budget the complete cross join of two 20,000-row tables exceeds: a
 * peek of it (as a plan, and as a view without an index) with a limit and no order, and {@code SELECT ... FROM a, b LIMIT 10} via {@code POST
 * /v1/sql}, answer with rows of the cross join ({@code "path": "slow_early"}); their dataflows are gone
 * afterwards and other reads go on.
 */
class EarlyLimitHttpTest {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final int ROWS = 20_000;

    @TempDir
    Path dir;

    record Response(int status, JsonNode json) {
    }

    static Response post(WebClient client, String uri, String body) {
        return client.post().uri(uri).contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchangeToMono(r -> r.bodyToMono(String.class).defaultIfEmpty("null")
                        .map(text -> new Response(r.statusCode().value(), JSON.readTree(text))))
                .block(Duration.ofSeconds(30));
    }

    /** Whether {@code row} ({@code [ax, apad, bx, bpad]}) is in the cross join of the tables as written. */
    static boolean inCrossJoin(JsonNode row) {
        long ax = row.get(0).asLong();
        long bx = row.get(2).asLong();
        return row.size() == 4 && ax >= 0 && ax < ROWS && bx >= 0 && bx < ROWS && row.get(1).asString().equals("a" + ax)
                && row.get(3).asString().equals("b" + bx);
    }

    static void assertCrossJoinRows(JsonNode rows, int n) {
        assertThat(rows.size()).isEqualTo(n);
        Set<String> seen = new HashSet<>();
        for (JsonNode row : rows) {
            assertThat(inCrossJoin(row)).as("%s is in the cross join", row).isTrue();
            assertThat(seen.add(row.toString())).as("%s appears once", row).isTrue();
        }
    }

    @Test
    void peeksAndSqlWithALimitAnswerEarlyUnderTheBudget() {
        Map<String, Object> props = Map.of("server.port", 0, "server.address", "127.0.0.1", "tandem.storage.data-dir", dir.toString(),
                "tandem.storage.fsync", false, "tandem.compute.maintenance-workers", 2, "tandem.compute.interactive-workers", 1,
                "tandem.compute.dataflow-memory-budget", "24MB");
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(TandemApplication.class).properties(props).run()) {
            WebClient client = WebClient.builder().baseUrl("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"))
                    .codecs(c -> c.defaultCodecs().maxInMemorySize(16 << 20)).build();
            for (String t : new String[] {"a", "b"}) {
                assertThat(post(client, "/v1/tables", "{\"name\":\"" + t + "\",\"columns\":[{\"name\":\"" + t + "x\",\"type\":\"int64\"},"
                        + "{\"name\":\"" + t + "pad\",\"type\":\"string\"}]}").status()).isEqualTo(201);
                StringBuilder rows = new StringBuilder("{\"insert\":[");
                for (int i = 0; i < ROWS; i++) {
                    rows.append(i == 0 ? "" : ",").append('[').append(i).append(",\"").append(t).append(i).append("\"]");
                }
                assertThat(post(client, "/v1/tables/" + t + "/rows", rows.append("]}").toString()).status()).isEqualTo(200);
            }
            String cross = "{\"op\":\"join\",\"inputs\":[{\"op\":\"get\",\"name\":\"a\"},{\"op\":\"get\",\"name\":\"b\"}],\"on\":[]}";

            // The whole join (an order waits for every row) is stopped by the budget.
            Response whole = post(client, "/v1/peek", "{\"plan\":" + cross + ",\"order_by\":[{\"col\":0}],\"limit\":10}");
            assertThat(whole.status()).isBetween(400, 499);
            assertThat(whole.json().get("detail").asString()).contains("memory budget of 24.0 MB");

            Response peek = post(client, "/v1/peek", "{\"plan\":" + cross + ",\"limit\":10}");
            assertThat(peek.status()).isEqualTo(200);
            assertThat(peek.json().get("path").asString()).isEqualTo("slow_early");
            assertCrossJoinRows(peek.json().get("rows"), 10);

            // Over a view without an index, as MemoryBudgetTest's peek once did (it now asks for an order).
            assertThat(post(client, "/v1/views", "{\"name\":\"everything\",\"plan\":" + cross + "}").status()).isEqualTo(201);
            Response view = post(client, "/v1/peek", "{\"from\":\"everything\",\"limit\":10,\"offset\":1000}");
            assertThat(view.status()).isEqualTo(200);
            assertThat(view.json().get("path").asString()).isEqualTo("slow_early");
            assertCrossJoinRows(view.json().get("rows"), 10);

            Response sql = post(client, "/v1/sql", "{\"sql\":\"SELECT * FROM a, b LIMIT 10\"}");
            assertThat(sql.status()).as("%s", sql.json()).isEqualTo(200);
            assertThat(sql.json().get("path").asString()).isEqualTo("slow_early");
            assertCrossJoinRows(sql.json().get("rows"), 10);
            Response sqlOffset = post(client, "/v1/sql", "{\"sql\":\"SELECT ax, apad, bx, bpad FROM a CROSS JOIN b LIMIT 10 OFFSET 5\"}");
            assertThat(sqlOffset.status()).as("%s", sqlOffset.json()).isEqualTo(200);
            assertCrossJoinRows(sqlOffset.json().get("rows"), 10);

            // Nothing of those dataflows is left running; other reads are answered.
            Multiplexer mux = context.getBean(Multiplexer.class);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(mux.reader().dataflows().keySet())
                    .noneMatch(id -> id.startsWith("t")));
            Response count = post(client, "/v1/sql", "{\"sql\":\"SELECT count(*) FROM a WHERE ax < 100\"}");
            assertThat(count.status()).isEqualTo(200);
            assertThat(count.json().get("rows").get(0).get(0).asLong()).isEqualTo(100);
        }
    }
}
