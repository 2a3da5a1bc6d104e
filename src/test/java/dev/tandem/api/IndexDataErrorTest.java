package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * An index whose view hits an evaluation error on some row says so in its status ({@code data_error}),
 * while reads of it answer the error as the design has them; once the row that caused it is gone, the
 * status is clear and reads answer rows again.
 */
class IndexDataErrorTest {

    @TempDir
    Path dir;

    @Test
    void anErrorInAnIndexsDataIsShownInItsStatusUntilItsRowIsGone() {
        try (TandemServer t = new TandemServer(dir, Map.of())) {
            for (String sql : new String[] {"CREATE TABLE d (k bigint, v bigint)", "INSERT INTO d VALUES (1, 1), (2, 5)",
                    "CREATE VIEW q AS SELECT k, 10 / v AS x FROM d", "CREATE INDEX q_k ON q (k)"}) {
                assertThat(t.post("/v1/sql", "{\"sql\":\"" + sql + "\"}").status()).as(sql).isEqualTo(200);
            }
            ApiJourneyTest.awaitHydrated(t, "q_k");
            assertThat(t.get("/v1/indexes/q_k").json().has("data_error")).isFalse();

            assertThat(t.post("/v1/sql", "{\"sql\":\"INSERT INTO d VALUES (3, 0)\"}").status()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> t.get("/v1/indexes/q_k").json().has("data_error"));
            JsonNode status = t.get("/v1/indexes/q_k").json();
            assertThat(status.get("data_error").asString()).contains("division by zero");
            assertThat(status.get("state").asString()).isEqualTo("hydrated");
            TandemServer.Response read = t.post("/v1/sql", "{\"sql\":\"SELECT x FROM q WHERE k = 1\",\"isolation\":\"strict\"}");
            assertThat(read.json().path("sqlstate").asString()).as(read.text()).isEqualTo("22012");
            assertThat(t.get("/v1/indexes").json().toString()).contains("division by zero");

            assertThat(t.post("/v1/sql", "{\"sql\":\"DELETE FROM d WHERE k = 3\"}").status()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !t.get("/v1/indexes/q_k").json().has("data_error"));
            TandemServer.Response again = t.post("/v1/sql", "{\"sql\":\"SELECT x FROM q WHERE k = 1\",\"isolation\":\"strict\"}");
            assertThat(again.status()).as(again.text()).isEqualTo(200);
            assertThat(again.json().get("rows").toString()).isEqualTo("[[10]]");
        }
    }
}
