package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** {@code /v1/introspection} over real HTTP: the list, a read with its freshness, a filtered read, errors. */
class IntrospectionApiTest {

    @TempDir
    Path dir;

    @Test
    void listsAndReadsIntrospectionCollections() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            TandemServer.Response list = s.get("/v1/introspection");
            assertThat(list.status()).isEqualTo(200);
            List<String> names = new ArrayList<>();
            list.json().forEach(n -> names.add(n.get("name").asString()));
            assertThat(names).containsExactly("tandem_dataflows", "tandem_frontiers", "tandem_arrangement_sizes", "tandem_operator_elapsed",
                    "tandem_read_holds", "tandem_hydration_progress", "tandem_subscriptions", "tandem_sources", "tandem_source_errors",
                    "tandem_storage_errors", "tandem_pg_sources");
            assertThat(list.json().get(1).get("columns").get(0).get("name").asString()).isEqualTo("collection_id");

            assertThat(s.post("/v1/tables", "{\"name\":\"t\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\"}]}").status()).isEqualTo(201);
            assertThat(s.post("/v1/indexes", "{\"name\":\"t_k\",\"on\":\"t\",\"key\":[\"k\"]}").status()).isEqualTo(201);
            String id = s.get("/v1/indexes/t_k").json().get("id").asString();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode rows = s.get("/v1/introspection/tandem_frontiers").json().get("rows");
                for (JsonNode r : rows) {
                    if (r.get(0).asString().equals(id)) {
                        return true;
                    }
                }
                return false;
            });
            TandemServer.Response read = s.get("/v1/introspection/tandem_dataflows?limit=1");
            assertThat(read.status()).isEqualTo(200);
            assertThat(read.json().get("rows").size()).isEqualTo(1);
            assertThat(read.json().has("as_of")).isTrue();
            assertThat(read.json().has("lag_ms")).isTrue();
            assertThat(read.json().get("path").asString()).isEqualTo("fast");

            TandemServer.Response filtered = s.post("/v1/introspection/tandem_frontiers",
                    "{\"filter\":[{\"call\":\"eq\",\"args\":[{\"col\":0},{\"lit\":\"" + id + "\"}]}],\"project\":[\"collection_id\"]}");
            assertThat(filtered.status()).isEqualTo(200);
            assertThat(filtered.json().get("rows").toString()).isEqualTo("[[\"" + id + "\"]]");

            TandemServer.Response unknown = s.get("/v1/introspection/nope");
            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.isProblem()).isTrue();
            assertThat(unknown.json().get("detail").asString()).contains("no introspection collection named 'nope'");
            assertThat(s.get("/v1/introspection/tandem_frontiers?bogus=1").status()).isEqualTo(400);
        }
    }
}
