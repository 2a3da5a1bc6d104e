package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The OpenAPI description at {@code /v3/api-docs} lists every {@code /v1} operation. */
class OpenApiTest {

    @TempDir
    Path dir;

    @Test
    void describesEveryOperation() {
        try (TandemServer s = new TandemServer(dir, Map.of())) {
            TandemServer.Response r = s.get("/v3/api-docs");
            assertThat(r.status()).isEqualTo(200);
            JsonNode paths = r.json().get("paths");
            assertThat(r.json().get("info").get("title").asString()).isEqualTo("Tandem API");
            assertThat(paths.has("/v1/tables")).isTrue();
            assertThat(paths.get("/v1/tables").has("post")).isTrue();
            assertThat(paths.get("/v1/tables/{name}/rows").has("post")).isTrue();
            assertThat(paths.get("/v1/indexes/{name}/rows").has("get")).isTrue();
            assertThat(paths.get("/v1/peek").has("post")).isTrue();
            // Every path that answers 405 for other methods is a described path, with exactly its methods.
            assertThat(paths.propertyNames()).containsExactlyInAnyOrderElementsOf(ApiRoutesAccess.allowed().keySet());
            ApiRoutesAccess.allowed().forEach((p, allow) -> assertThat(paths.get(p).propertyNames().stream().map(String::toUpperCase))
                    .as(p).containsExactlyInAnyOrder(allow.split(", ")));
            assertThat(r.json().at("/components/schemas/Problem").isObject()).isTrue();
        }
    }
}
