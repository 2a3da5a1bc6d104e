package dev.tandem.api;

import static dev.tandem.api.TandemServer.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.api.TandemServer.Response;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The user's journey over real HTTP: tables, writes, indexes, fast and slow reads, strict and
 * read-your-writes reads, drops, then a restart on the same data directory that answers the same.
 */
class ApiJourneyTest {

    @TempDir
    Path dir;

    static final String JOIN = """
            {"plan":{"op":"mfp","input":{"op":"join","inputs":[{"op":"get","name":"orders"},{"op":"get","name":"customers"}],
              "on":[[[0,1],[1,0]]]},"project":[0,4,2]},"order_by":[{"col":0}],"isolation":"strict"}""";

    @ParameterizedTest(name = "two runtimes: {0}")
    @ValueSource(booleans = {true, false})
    void journey(boolean twoRuntimes) {
        Map<String, Object> props = Map.of("tandem.compute.interactive-runtime.enabled", twoRuntimes);
        JsonNode pointBefore;
        JsonNode joinBefore;
        try (TandemServer s = new TandemServer(dir, props)) {
            Response t = s.post("/v1/tables", """
                    {"name":"orders","columns":[{"name":"id","type":"int64","nullable":false},
                      {"name":"customer","type":"int64"},{"name":"amount","type":"int64"}]}""");
            assertThat(t.status()).isEqualTo(201);
            assertThat(t.json().get("name").stringValue()).isEqualTo("orders");
            assertThat(t.json().get("id").stringValue()).isNotEmpty();
            assertThat(t.json().get("columns")).isEqualTo(json("""
                    [{"name":"id","type":"int64","nullable":false},{"name":"customer","type":"int64","nullable":true},
                     {"name":"amount","type":"int64","nullable":true}]"""));
            assertThat(s.post("/v1/tables", """
                    {"name":"customers","columns":[{"name":"id","type":"int64","nullable":false},{"name":"name","type":"string"}]}""")
                    .status()).isEqualTo(201);
            assertThat(s.get("/v1/tables").json()).hasSize(2);
            assertThat(s.get("/v1/tables/orders").json().get("name").stringValue()).isEqualTo("orders");

            Response w = s.post("/v1/tables/orders/rows", "{\"insert\":[[1,10,100],[2,10,250],[3,20,75]]}");
            assertThat(w.status()).isEqualTo(200);
            assertThat(w.json().get("timestamp").isIntegralNumber()).isTrue();
            assertThat(s.post("/v1/tables/customers/rows", "{\"insert\":[[10,\"ada\"],[20,\"bob\"]]}").status()).isEqualTo(200);
            // A table's status: past the write just acknowledged, readable from before it, holding its three rows.
            JsonNode orders = s.get("/v1/tables/orders").json();
            assertThat(orders.get("write_frontier").longValue()).isGreaterThan(w.json().get("timestamp").longValue());
            assertThat(orders.get("since").longValue()).isLessThanOrEqualTo(w.json().get("timestamp").longValue());
            assertThat(orders.get("records").longValue()).isEqualTo(3);
            assertThat(s.get("/v1/tables").json().findValues("records").stream().map(JsonNode::longValue).sorted().toList())
                    .containsExactly(2L, 3L);

            Response idx = s.post("/v1/indexes", "{\"name\":\"orders_by_id\",\"on\":\"orders\",\"key\":[\"id\"]}");
            assertThat(idx.status()).isEqualTo(201);
            assertThat(idx.json().get("on").stringValue()).isEqualTo("orders");
            assertThat(s.post("/v1/indexes", "{\"name\":\"customers_by_id\",\"on\":\"customers\",\"key\":[\"id\"],\"compaction_window_ms\":5000}")
                    .status()).isEqualTo(201);
            awaitHydrated(s, "orders_by_id");
            awaitHydrated(s, "customers_by_id");
            JsonNode status = s.get("/v1/indexes/orders_by_id").json();
            for (String f : new String[] {"id", "name", "on", "key", "hydrated", "write_frontier", "since", "records"}) {
                assertThat(status.has(f)).as(f).isTrue();
            }
            assertThat(status.get("records").longValue()).isEqualTo(3);
            assertThat(s.get("/v1/indexes").json()).hasSize(2);

            // Fast path, both ways.
            Response point = s.post("/v1/peek", "{\"from\":\"orders_by_id\",\"key\":[[2]]}");
            assertThat(point.status()).isEqualTo(200);
            assertThat(point.json().get("path").stringValue()).isEqualTo("fast");
            assertThat(point.json().get("rows")).isEqualTo(json("[[2,10,250]]"));
            assertThat(point.json().get("columns")).isEqualTo(json("[\"id\",\"customer\",\"amount\"]"));
            assertThat(point.json().get("runtime").stringValue()).isEqualTo(twoRuntimes ? "interactive" : "solo");
            for (String f : new String[] {"as_of", "upper", "since", "lag_ms", "hydrated"}) {
                assertThat(point.json().has(f)).as(f).isTrue();
            }
            Response lookup = s.get("/v1/indexes/orders_by_id/rows?key=2&key=3");
            assertThat(lookup.status()).isEqualTo(200);
            assertThat(lookup.json().get("rows")).isEqualTo(json("[[2,10,250],[3,20,75]]"));

            // A strict read after a write sees it; read-your-writes through as_of.
            long ts = s.post("/v1/tables/orders/rows", "{\"insert\":[[4,20,5]]}").json().get("timestamp").longValue();
            Response strict = s.post("/v1/peek", "{\"from\":\"orders\",\"key\":[[4]],\"isolation\":\"strict\"}");
            assertThat(strict.json().get("rows")).isEqualTo(json("[[4,20,5]]"));
            assertThat(strict.json().get("as_of").longValue()).isGreaterThanOrEqualTo(ts);
            long ts2 = s.post("/v1/tables/orders/rows", "{\"insert\":[[5,10,1]],\"delete\":[[4,20,5]]}").json().get("timestamp").longValue();
            Response ryw = s.post("/v1/peek", "{\"from\":\"orders_by_id\",\"as_of\":" + ts2 + ",\"project\":[\"id\"],\"order_by\":[{\"col\":\"id\"}]}");
            assertThat(ryw.json().get("as_of").longValue()).isEqualTo(ts2);
            assertThat(ryw.json().get("rows")).isEqualTo(json("[[1],[2],[3],[5]]"));

            // Slow path: a join through a plan, and through a view.
            Response join = s.post("/v1/peek", JOIN);
            assertThat(join.status()).isEqualTo(200);
            assertThat(join.json().get("path").stringValue()).isEqualTo("slow");
            assertThat(join.json().get("rows")).isEqualTo(json("[[1,\"ada\",100],[2,\"ada\",250],[3,\"bob\",75],[5,\"ada\",1]]"));
            Response view = s.post("/v1/views", """
                    {"name":"order_names","plan":{"op":"mfp","input":{"op":"join","inputs":[{"op":"get","name":"orders"},{"op":"get","name":"customers"}],
                      "on":[[[0,1],[1,0]]]},"project":[0,4]},"columns":["order_id","customer_name"]}""");
            assertThat(view.status()).isEqualTo(201);
            assertThat(s.get("/v1/views/order_names").json().get("columns").get(1).get("name").stringValue()).isEqualTo("customer_name");
            Response viewRead = s.post("/v1/peek", "{\"from\":\"order_names\",\"filter\":[{\"call\":\"eq\",\"args\":[{\"col\":0},{\"lit\":3}]}]}");
            assertThat(viewRead.status()).as(viewRead.text()).isEqualTo(200);
            assertThat(viewRead.json().get("rows")).isEqualTo(json("[[3,\"bob\"]]"));

            // Drops: a table in use is refused; a view and an unused index go.
            Response inUse = s.delete("/v1/tables/orders");
            assertThat(inUse.status()).isEqualTo(409);
            assertThat(inUse.isProblem()).isTrue();
            assertThat(inUse.json().get("detail").stringValue()).contains("orders_by_id");
            assertThat(s.delete("/v1/views/order_names").status()).isEqualTo(204);
            assertThat(s.get("/v1/views/order_names").status()).isEqualTo(404);
            assertThat(s.post("/v1/indexes", "{\"name\":\"tmp\",\"on\":\"orders\",\"key\":[\"customer\"]}").status()).isEqualTo(201);
            assertThat(s.delete("/v1/indexes/tmp").status()).isEqualTo(204);
            assertThat(s.get("/v1/indexes/tmp").status()).isEqualTo(404);

            pointBefore = s.get("/v1/indexes/orders_by_id/rows?key=2").json().get("rows");
            joinBefore = s.post("/v1/peek", JOIN).json().get("rows");
        }
        try (TandemServer s = new TandemServer(dir, props)) {
            awaitHydrated(s, "orders_by_id");
            awaitHydrated(s, "customers_by_id");
            assertThat(s.get("/v1/tables").json()).hasSize(2);
            assertThat(s.get("/v1/indexes").json()).hasSize(2);
            assertThat(s.get("/v1/views").json()).isEmpty();
            assertThat(s.get("/v1/indexes/orders_by_id/rows?key=2").json().get("rows")).isEqualTo(pointBefore);
            assertThat(s.post("/v1/peek", JOIN).json().get("rows")).isEqualTo(joinBefore);
        }
    }

    static void awaitHydrated(TandemServer s, String index) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> s.get("/v1/indexes/" + index).json().get("hydrated").booleanValue());
    }
}
