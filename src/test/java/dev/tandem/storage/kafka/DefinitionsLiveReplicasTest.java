package dev.tandem.storage.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.testing.ReplicaProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Definitions made through any replica while three replicas run (child JVMs over one real KRaft broker):
 * a table created through r0, an index on it through r1 and a view of it through r2 reach every replica
 * through the log without a restart; writes through every replica are read back on every replica from the
 * table, the index (key lookups) and the view, equal to a naive model; a view dropped through another
 * replica than created it is gone everywhere; and two replicas racing to create one name end with one
 * catalog everywhere, the loser answered 409; a table with a primary key defined through one replica is
 * indexed by its key on every replica, and of two replicas inserting one key at once exactly one wins.
 */
class DefinitionsLiveReplicasTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration READY = Duration.ofSeconds(120);
    private static final Duration LEARN = Duration.ofSeconds(30);
    private static final int ROWS_PER_REPLICA = 20;
    private static final int RACES = 4;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void definitionsThroughAnyReplicaReachEveryReplicaLive() throws Exception {
        KafkaTesting.quietLogs();
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        String servers = broker.getBrokersAsString();
        List<ReplicaProcess> replicas = new ArrayList<>();
        ExecutorService racers = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 3; i++) {
                replicas.add(ReplicaProcess.start("r" + i, servers, "tandem-log", dir));
            }
            for (ReplicaProcess r : replicas) {
                r.awaitReady(READY);
            }
            ReplicaProcess r0 = replicas.get(0);
            ReplicaProcess r1 = replicas.get(1);
            ReplicaProcess r2 = replicas.get(2);
            // The model: id -> v, as every acknowledged write leaves it.
            Map<Long, Long> model = new TreeMap<>();

            // A table through r0, with rows before any index exists.
            ok(r0.post("/v1/tables", "{\"name\":\"kv\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"v\",\"type\":\"int64\"}]}"));
            long last = write(r0, model, 0, List.of(), 0);
            for (ReplicaProcess r : replicas) {
                await().atMost(LEARN).pollInterval(Duration.ofMillis(100)).until(() -> r.get("/v1/tables/kv").statusCode() == 200);
            }

            // An index through r1, a view through r2 (another replica than the table's).
            ok(r1.post("/v1/indexes", "{\"name\":\"kv_by_id\",\"on\":\"kv\",\"key\":[\"id\"]}"));
            ok(r2.post("/v1/views", "{\"name\":\"big\",\"plan\":{\"op\":\"mfp\",\"input\":{\"op\":\"get\",\"name\":\"kv\"},"
                    + "\"filter\":[{\"call\":\"gt\",\"args\":[{\"col\":1},{\"lit\":50}]}],\"project\":[0,1]}}"));
            for (ReplicaProcess r : replicas) {
                await().atMost(LEARN).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> JSON.readTree(r.get("/v1/indexes/kv_by_id").body()).get("hydrated").asBoolean()
                                && r.get("/v1/views/big").statusCode() == 200);
            }

            // Writes (inserts, updates, deletes) through every replica, each into every table it learned.
            for (int i = 0; i < replicas.size(); i++) {
                long base = 1000L * (i + 1);
                last = Math.max(last, write(replicas.get(i), model, base, List.of(0L, 1L), i + 1));
            }
            for (int i = 0; i < replicas.size(); i++) {
                ReplicaProcess r = replicas.get(i);
                assertThat(rows(r.post("/v1/peek", "{\"from\":\"kv\",\"as_of\":" + last + ",\"timeout_ms\":30000}")))
                        .as("replica %d: the table", i).isEqualTo(model);
                List<Long> keys = new ArrayList<>(model.keySet()).subList(0, 10);
                keys.add(999_999L);
                StringBuilder key = new StringBuilder();
                for (long k : keys) {
                    key.append(key.isEmpty() ? "" : ",").append('[').append(k).append(']');
                }
                HttpResponse<String> lookup = r.post("/v1/peek", "{\"from\":\"kv_by_id\",\"key\":[" + key + "],\"as_of\":" + last
                        + ",\"timeout_ms\":30000}");
                Map<Long, Long> expected = new TreeMap<>(model);
                expected.keySet().retainAll(keys);
                assertThat(rows(lookup)).as("replica %d: lookups in the index", i).isEqualTo(expected);
                assertThat(JSON.readTree(lookup.body()).get("path").asString()).isEqualTo("fast");
                Map<Long, Long> big = new TreeMap<>(model);
                big.values().removeIf(v -> v <= 50);
                assertThat(rows(r.post("/v1/peek", "{\"from\":\"big\",\"as_of\":" + last + ",\"timeout_ms\":30000}")))
                        .as("replica %d: the view", i).isEqualTo(big);
            }

            // The view, created through r2, dropped through r0: gone everywhere.
            ok(r0.delete("/v1/views/big"));
            for (ReplicaProcess r : replicas) {
                await().atMost(LEARN).pollInterval(Duration.ofMillis(100)).until(() -> r.get("/v1/views/big").statusCode() == 404);
            }

            // A table with a primary key through r2: every replica serves its key's index, and of two replicas
            // inserting one key at once exactly one wins, alike everywhere.
            ok(r2.post("/v1/tables", "{\"name\":\"keyed\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"},"
                    + "{\"name\":\"v\",\"type\":\"int64\"}],\"primary_key\":[\"id\"]}"));
            for (ReplicaProcess r : replicas) {
                await().atMost(LEARN).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                        .until(() -> JSON.readTree(r.get("/v1/indexes/keyed_pkey").body()).get("hydrated").asBoolean());
            }
            Map<Long, Long> keyed = new TreeMap<>();
            long keyedLast = 0;
            for (long k = 0; k < RACES; k++) {
                String row = "{\"insert\":[[" + k + ",";
                CountDownLatch go = new CountDownLatch(1);
                Future<HttpResponse<String>> a = racers.submit(() -> {
                    go.await();
                    return r0.post("/v1/tables/keyed/rows", row + "0]]}");
                });
                Future<HttpResponse<String>> b = racers.submit(() -> {
                    go.await();
                    return r1.post("/v1/tables/keyed/rows", row + "1]]}");
                });
                go.countDown();
                HttpResponse<String> ra = a.get(60, TimeUnit.SECONDS);
                HttpResponse<String> rb = b.get(60, TimeUnit.SECONDS);
                assertThat(List.of(ra.statusCode(), rb.statusCode())).as("%s / %s", ra.body(), rb.body()).containsExactlyInAnyOrder(200, 409);
                assertThat((ra.statusCode() == 409 ? ra : rb).body()).contains("unique-violation", "Key (id)=(" + k + ") already exists.");
                keyed.put(k, ra.statusCode() == 200 ? 0L : 1L);
                keyedLast = Math.max(keyedLast, timestamp(ra.statusCode() == 200 ? ra : rb));
            }
            for (int i = 0; i < replicas.size(); i++) {
                HttpResponse<String> lookup = replicas.get(i).post("/v1/peek", "{\"from\":\"keyed\",\"key\":[[0],[1]],\"as_of\":" + keyedLast
                        + ",\"timeout_ms\":30000}");
                Map<Long, Long> expected = new TreeMap<>(keyed);
                expected.keySet().retainAll(List.of(0L, 1L));
                assertThat(rows(lookup)).as("replica %d: the keyed table", i).isEqualTo(expected);
                assertThat(JSON.readTree(lookup.body()).get("path").asString()).isEqualTo("fast");
            }

            // Races: r1 and r2 create one name at once, with different columns: one wins, the other gets
            // 409, and every replica ends with the winner's definition.
            for (int race = 0; race < RACES; race++) {
                String name = "race" + race;
                CountDownLatch go = new CountDownLatch(1);
                Future<HttpResponse<String>> a = racers.submit(() -> {
                    go.await();
                    return r1.post("/v1/tables", "{\"name\":\"" + name + "\",\"columns\":[{\"name\":\"from_r1\",\"type\":\"int64\"}]}");
                });
                Future<HttpResponse<String>> b = racers.submit(() -> {
                    go.await();
                    return r2.post("/v1/tables", "{\"name\":\"" + name + "\",\"columns\":[{\"name\":\"from_r2\",\"type\":\"int64\"}]}");
                });
                go.countDown();
                HttpResponse<String> ra = a.get(60, TimeUnit.SECONDS);
                HttpResponse<String> rb = b.get(60, TimeUnit.SECONDS);
                // Classes of the answers: 2 for created, the status itself otherwise.
                List<Integer> answers = new ArrayList<>();
                for (HttpResponse<String> x : List.of(ra, rb)) {
                    answers.add(x.statusCode() / 100 == 2 ? 2 : x.statusCode());
                }
                assertThat(answers).as("%s / %s", ra.body(), rb.body()).containsExactlyInAnyOrder(2, 409);
                HttpResponse<String> lost = ra.statusCode() == 409 ? ra : rb;
                assertThat(lost.body()).contains("already exists");
                String winner = ra.statusCode() / 100 == 2 ? "from_r1" : "from_r2";
                for (ReplicaProcess r : replicas) {
                    await().atMost(LEARN).pollInterval(Duration.ofMillis(100))
                            .until(() -> r.get("/v1/tables/" + name).statusCode() == 200);
                    assertThat(JSON.readTree(r.get("/v1/tables/" + name).body()).get("columns").get(0).get("name").asString())
                            .isEqualTo(winner);
                }
            }
            // One catalog everywhere.
            String catalog = catalog(r0);
            for (ReplicaProcess r : replicas) {
                assertThat(catalog(r)).isEqualTo(catalog);
            }
            assertThat(catalog).contains("\"kv\"", "\"kv_by_id\"", "\"keyed_pkey\"").doesNotContain("\"big\"");
        } finally {
            racers.shutdownNow();
            for (ReplicaProcess r : replicas) {
                r.close();
            }
            broker.destroy();
        }
    }

    /**
     * Through {@code r}: inserts rows {@code base .. base+ROWS_PER_REPLICA-1} (v = id % 100), then updates the
     * rows at {@code updateOffsets} (v + 100) and deletes row {@code base + 2}, as separate writes, keeping
     * {@code model} in step with each acknowledged write; returns the last write's timestamp.
     */
    private static long write(ReplicaProcess r, Map<Long, Long> model, long base, List<Long> updateOffsets, int replica) throws Exception {
        StringBuilder insert = new StringBuilder();
        for (long id = base; id < base + ROWS_PER_REPLICA; id++) {
            insert.append(insert.isEmpty() ? "" : ",").append('[').append(id).append(',').append(id % 100).append(']');
        }
        long t = timestamp(r.post("/v1/tables/kv/rows", "{\"insert\":[" + insert + "]}"));
        for (long id = base; id < base + ROWS_PER_REPLICA; id++) {
            model.put(id, id % 100);
        }
        for (long offset : updateOffsets) {
            long id = base + offset;
            long v = model.get(id);
            t = timestamp(r.post("/v1/tables/kv/rows", "{\"delete\":[[" + id + "," + v + "]],\"insert\":[[" + id + "," + (v + 100) + "]]}"));
            model.put(id, v + 100);
        }
        if (replica > 0) {
            long id = base + 2;
            t = timestamp(r.post("/v1/tables/kv/rows", "{\"delete\":[[" + id + "," + model.get(id) + "]]}"));
            model.remove(id);
        }
        return t;
    }

    private static long timestamp(HttpResponse<String> r) {
        ok(r);
        return JSON.readTree(r.body()).get("timestamp").asLong();
    }

    /** A read's rows as id -> v; fails on a repeated id. */
    private static Map<Long, Long> rows(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<Long, Long> out = new TreeMap<>();
        for (JsonNode row : JSON.readTree(r.body()).get("rows")) {
            assertThat(out.put(row.get(0).asLong(), row.get(1).asLong())).as("row %s appears once", row).isNull();
        }
        return out;
    }

    /** The replica's tables and views as listed, and its indexes' definitions (not their progress, which is the replica's own). */
    private static String catalog(ReplicaProcess r) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String kind : List.of("tables", "views")) {
            HttpResponse<String> list = r.get("/v1/" + kind);
            ok(list);
            JsonNode entries = JSON.readTree(list.body());
            for (JsonNode e : entries) {
                // where a replica is in time and what it has compacted are its own: the definitions are the catalog
                ((ObjectNode) e).remove(List.of("write_frontier", "since", "records"));
            }
            out.append(kind).append('=').append(entries).append('\n');
        }
        HttpResponse<String> indexes = r.get("/v1/indexes");
        ok(indexes);
        for (JsonNode i : JSON.readTree(indexes.body())) {
            out.append("index=").append(i.get("name")).append(" on ").append(i.get("on")).append(" by ").append(i.get("key")).append('\n');
        }
        return out.toString();
    }

    private static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
    }
}
