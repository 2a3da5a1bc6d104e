package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dataflow that would fill the heap (a cross join of two 3,000-row tables: nine million rows) is
 * stopped at its memory budget with an error naming the budget, as a peek and as an index, while
 * another client's point reads keep being answered and the server stays up; the failed index stays
 * failed across a restart instead of hydrating again, until it is dropped.
 */
class MemoryBudgetTest {

    @TempDir
    Path dir;

    @Test
    void aCrossJoinOverItsBudgetFailsAndOtherReadsGoOn() throws Exception {
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.compute.dataflow-memory-budget", "32MB"))) {
            for (String t : new String[] {"a", "b"}) {
                assertThat(s.post("/v1/tables", "{\"name\":\"" + t + "\",\"columns\":[{\"name\":\"x\",\"type\":\"int64\"},"
                        + "{\"name\":\"pad\",\"type\":\"string\"}]}").status()).isEqualTo(201);
                StringBuilder rows = new StringBuilder("{\"insert\":[");
                for (int i = 0; i < 3000; i++) {
                    rows.append(i == 0 ? "" : ",").append("[").append(i).append(",\"row number ").append(i).append("\"]");
                }
                assertThat(s.post("/v1/tables/" + t + "/rows", rows.append("]}").toString()).status()).isEqualTo(200);
            }
            assertThat(s.post("/v1/indexes", "{\"name\":\"a_x\",\"on\":\"a\",\"key\":[\"x\"]}").status()).isEqualTo(201);
            await().atMost(Duration.ofSeconds(30)).until(() -> s.get("/v1/indexes/a_x").json().get("hydrated").asBoolean());
            assertThat(s.post("/v1/views", "{\"name\":\"everything\",\"plan\":{\"op\":\"join\",\"inputs\":"
                    + "[{\"op\":\"get\",\"name\":\"a\"},{\"op\":\"get\",\"name\":\"b\"}],\"on\":[]},"
                    + "\"columns\":[\"ax\",\"apad\",\"bx\",\"bpad\"]}").status()).isEqualTo(201);

            // Another client reads a point index all the while.
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger answered = new AtomicInteger();
            AtomicInteger wrong = new AtomicInteger();
            Thread reader = new Thread(() -> {
                for (int i = 0; i < 10_000 && !stop.get(); i++) {
                    TandemServer.Response r = s.get("/v1/indexes/a_x/rows?key=" + (i % 3000));
                    if (r.status() == 200 && r.json().get("rows").size() == 1) {
                        answered.incrementAndGet();
                    } else {
                        wrong.incrementAndGet();
                    }
                }
            }, "point-reader");
            reader.start();
            try {
                // As a peek that needs every row (an order): stopped at the budget, answered with a problem naming it.
                TandemServer.Response heavy = s.post("/v1/peek", "{\"from\":\"everything\",\"order_by\":[{\"col\":\"ax\"}],\"limit\":10,\"timeout_ms\":60000}");
                assertThat(heavy.status()).isBetween(400, 499);
                assertThat(heavy.isProblem()).isTrue();
                assertThat(heavy.json().get("detail").asString()).contains("memory budget of 32.0 MB");

                // As a SQL query: PostgreSQL's out_of_memory
                TandemServer.Response sql = s.post("/v1/sql", "{\"sql\":\"SELECT ax FROM everything ORDER BY ax LIMIT 10\"}");
                assertThat(sql.json().path("sqlstate").asString()).as(sql.text()).isEqualTo("53200");
                assertThat(sql.json().get("detail").asString()).contains("memory budget of 32.0 MB");

                int before = answered.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> answered.get() > before + 20);

                // As an index: stopped at the budget, shown as failed with its error, reads refused.
                assertThat(s.post("/v1/indexes", "{\"name\":\"all_pairs\",\"on\":\"everything\",\"key\":[\"ax\"]}").status())
                        .isEqualTo(201);
                await().atMost(Duration.ofSeconds(60)).until(() -> "failed".equals(s.get("/v1/indexes/all_pairs").json().path("state").asString()));
                assertThat(s.get("/v1/indexes/all_pairs").json().get("error").asString()).contains("memory budget of 32.0 MB");
                TandemServer.Response refused = s.get("/v1/indexes/all_pairs/rows?key=1");
                assertThat(refused.status()).isEqualTo(409);
                assertThat(refused.json().get("detail").asString()).contains("failed");
                String id = s.get("/v1/indexes/all_pairs").json().get("id").asString();
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                        s.post("/v1/introspection/tandem_dataflows", "{\"key\":[[\"" + id + "\"]]}").json().get("rows").toString())
                        .contains("memory budget of 32.0 MB"));
                int later = answered.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> answered.get() > later + 20);
            } finally {
                stop.set(true);
                reader.join(Duration.ofSeconds(30));
            }
            assertThat(wrong.get()).isZero();
            assertThat(s.get("/v1/ping").status()).isEqualTo(200);
            assertThat(s.get("/v1/indexes/a_x/rows?key=7").json().get("rows").get(0).get(0).asLong()).isEqualTo(7);
        }
        // After a restart the failed index is still failed, and not hydrated again; dropping it clears it.
        try (TandemServer s = new TandemServer(dir, Map.of("tandem.compute.dataflow-memory-budget", "32MB"))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> s.get("/v1/indexes/a_x").json().get("hydrated").asBoolean());
            var status = s.get("/v1/indexes/all_pairs").json();
            assertThat(status.get("state").asString()).isEqualTo("failed");
            assertThat(status.get("hydrated").asBoolean()).isFalse();
            assertThat(s.get("/actuator/health/readiness").status()).isEqualTo(200);
            assertThat(s.delete("/v1/indexes/all_pairs").status()).isBetween(200, 299);
            assertThat(s.get("/v1/indexes/all_pairs").status()).isEqualTo(404);
        }
    }
}
