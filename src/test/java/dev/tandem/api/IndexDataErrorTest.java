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
 * while reads that meet the failing row answer the error and reads of other keys of the index answer rows;
 * once the row that caused it is gone, the status is clear and every read answers rows again.
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
            // The failing row's key is known: reads of it, and reads of every key, meet the error; reads of other keys answer.
            assertThat(read(t, "SELECT x FROM q WHERE k = 3").json().path("sqlstate").asString()).isEqualTo("22012");
            assertThat(read(t, "SELECT x FROM q WHERE k IN (1, 3)").json().path("sqlstate").asString()).isEqualTo("22012");
            assertThat(read(t, "SELECT x FROM q").json().path("sqlstate").asString()).isEqualTo("22012");
            TandemServer.Response good = read(t, "SELECT x FROM q WHERE k = 1");
            assertThat(good.status()).as(good.text()).isEqualTo(200);
            assertThat(good.json().get("rows").toString()).isEqualTo("[[10]]");
            assertThat(read(t, "SELECT k, x FROM q WHERE k IN (1, 2) ORDER BY k").json().get("rows").toString()).isEqualTo("[[1,10],[2,2]]");
            assertThat(t.get("/v1/indexes").json().toString()).contains("division by zero");

            assertThat(t.post("/v1/sql", "{\"sql\":\"DELETE FROM d WHERE k = 3\"}").status()).isEqualTo(200);
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !t.get("/v1/indexes/q_k").json().has("data_error"));
            TandemServer.Response again = read(t, "SELECT x FROM q ORDER BY x");
            assertThat(again.status()).as(again.text()).isEqualTo(200);
            assertThat(again.json().get("rows").toString()).isEqualTo("[[2],[10]]");
        }
    }

    @Test
    void anErrorWhoseKeyCannotBeComputedFailsEveryRead() {
        try (TandemServer t = new TandemServer(dir, Map.of())) {
            for (String sql : new String[] {"CREATE TABLE d (k bigint, v bigint)", "INSERT INTO d VALUES (1, 1), (2, 0)",
                    "CREATE VIEW q AS SELECT 10 / v AS x, k FROM d", "CREATE INDEX q_x ON q (x)"}) {
                assertThat(t.post("/v1/sql", "{\"sql\":\"" + sql + "\"}").status()).as(sql).isEqualTo(200);
            }
            ApiJourneyTest.awaitHydrated(t, "q_x");
            // The failing row's key is the failing expression: no read of the index can be told it is unaffected.
            assertThat(read(t, "SELECT k FROM q WHERE x = 10").json().path("sqlstate").asString()).isEqualTo("22012");
            assertThat(t.get("/v1/indexes/q_x").json().get("data_error").asString()).contains("division by zero");
        }
    }

    private static TandemServer.Response read(TandemServer t, String sql) {
        return t.post("/v1/sql", "{\"sql\":\"" + sql + "\",\"isolation\":\"strict\"}");
    }
}
