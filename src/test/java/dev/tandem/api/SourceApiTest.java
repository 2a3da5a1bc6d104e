package dev.tandem.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;

/**
 * Kafka sources through the public API over a real broker (KRaft): the append, upsert and Debezium
 * envelopes against a naive model of each, refused records in the error collection with partition and
 * offset while good records keep flowing, resuming from the recorded offsets after a restart on the
 * Kafka storage backend with nothing lost or repeated (the local log's crash case is
 * {@code SourceCrashTest}), and the 4xx answers.
 */
class SourceApiTest {

    private static EmbeddedKafkaKraftBroker broker;
    private static KafkaProducer<byte[], byte[]> producer;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() {
        for (String name : new String[] {"org.apache.kafka", "kafka", "state.change.logger"}) {
            ((Logger) LoggerFactory.getLogger(name)).setLevel(Level.WARN);
        }
        broker = new EmbeddedKafkaKraftBroker(1, 2);
        broker.afterPropertiesSet();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stopBroker() {
        if (producer != null) {
            producer.close();
        }
        if (broker != null) {
            broker.destroy();
        }
    }

    private TandemServer server(Map<String, Object> extra) {
        Map<String, Object> props = new HashMap<>(extra);
        props.put("tandem.sources.bootstrap-servers", broker.getBrokersAsString());
        return new TandemServer(dir, props);
    }

    private static final java.util.Set<String> CREATED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Sends one record; its topic is created (2 partitions) before the first, rather than by the broker when
     * the record arrives: the idempotent producer's retries against a topic still electing its leader have
     * ended in an endless OutOfOrderSequenceException loop (a flush that never returned).
     */
    private static void send(String topic, int partition, String key, String value) {
        if (CREATED.add(topic)) {
            createTopic(topic);
        }
        producer.send(new ProducerRecord<>(topic, partition, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
    }

    /** Creates {@code topic} with 2 partitions unless it exists (a source's consumer may have made it), and waits for its leaders. */
    private static void createTopic(String topic) {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()))) {
            try {
                admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 2, (short) 1))).all().get(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                    throw new AssertionError("creating topic " + topic, e);
                }
            }
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic)
                    .partitions().stream().allMatch(p -> p.leader() != null));
        } catch (InterruptedException | java.util.concurrent.TimeoutException e) {
            throw new AssertionError("creating topic " + topic, e);
        }
    }

    private static String source(String name, String topic, String envelope, String key) {
        return "{\"name\":\"" + name + "\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false},"
                + "{\"name\":\"v\",\"type\":\"string\"}],\"kafka\":{\"topic\":\"" + topic + "\",\"format\":\"json\","
                + (key == null ? "" : "\"key\":[\"" + key + "\"],") + "\"envelope\":\"" + envelope + "\"}}";
    }

    /** The table's rows as "id|v" strings with their multiplicities, read with SQL. */
    private static Map<String, Integer> rows(TandemServer s, String table) {
        TandemServer.Response r = s.post("/v1/sql", "{\"sql\":\"SELECT id, v FROM " + table + "\"}");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        Map<String, Integer> out = new TreeMap<>();
        for (JsonNode row : r.json().get("rows")) {
            out.merge(row.get(0).asLong() + "|" + (row.get(1).isNull() ? "null" : row.get(1).asString()), 1, Integer::sum);
        }
        return out;
    }

    private static void awaitRows(TandemServer s, String table, Map<String, Integer> model) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> assertThat(rows(s, table)).isEqualTo(model));
    }

    private static JsonNode status(TandemServer s, String name) {
        TandemServer.Response r = s.get("/v1/sources/" + name);
        assertThat(r.status()).as(r.text()).isEqualTo(200);
        return r.json();
    }

    @Test
    void envelopesMatchTheirModelsAndBadRecordsAreSetAside() {
        try (TandemServer s = server(Map.of())) {
            assertThat(s.post("/v1/sources", source("app", "app-t", "append", null)).status()).isEqualTo(201);
            assertThat(s.post("/v1/sources", source("ups", "ups-t", "upsert", "id")).status()).isEqualTo(201);
            assertThat(s.post("/v1/sources", source("cdc", "cdc-t", "debezium", "id")).status()).isEqualTo(201);

            // Append: every value is a row, duplicates included.
            Map<String, Integer> append = new TreeMap<>();
            for (int i = 0; i < 30; i++) {
                int id = i % 7;
                send("app-t", i % 2, null, "{\"id\":" + id + ",\"v\":\"a" + (i % 3) + "\"}");
                append.merge(id + "|a" + (i % 3), 1, Integer::sum);
            }
            // Upsert: the latest value per key; a null value deletes; bare and object keys.
            Map<Long, String> upsert = new HashMap<>();
            for (int i = 0; i < 40; i++) {
                long id = i % 9;
                if (i % 5 == 4) {
                    send("ups-t", (int) (id % 2), "{\"id\":" + id + "}", null);
                    upsert.remove(id);
                } else {
                    send("ups-t", (int) (id % 2), i % 2 == 0 ? Long.toString(id) : "{\"id\":" + id + "}", "{\"id\":" + id + ",\"v\":\"u" + i + "\"}");
                    upsert.put(id, "u" + i);
                }
            }
            // Debezium: creates, snapshot reads, updates (one changing the key), deletes, tombstones, payload-wrapped events.
            Map<Long, String> cdc = new HashMap<>();
            send("cdc-t", 0, null, "{\"op\":\"r\",\"before\":null,\"after\":{\"id\":1,\"v\":\"one\"}}");
            cdc.put(1L, "one");
            send("cdc-t", 0, null, "{\"payload\":{\"op\":\"c\",\"before\":null,\"after\":{\"id\":2,\"v\":\"two\"}}}");
            cdc.put(2L, "two");
            send("cdc-t", 0, null, "{\"op\":\"c\",\"after\":{\"id\":3,\"v\":\"three\"}}");
            cdc.put(3L, "three");
            send("cdc-t", 0, null, "{\"op\":\"u\",\"before\":{\"id\":1,\"v\":\"one\"},\"after\":{\"id\":1,\"v\":\"uno\"}}");
            cdc.put(1L, "uno");
            send("cdc-t", 0, null, "{\"op\":\"u\",\"before\":{\"id\":2,\"v\":\"two\"},\"after\":{\"id\":20,\"v\":\"twenty\"}}");
            cdc.remove(2L);
            cdc.put(20L, "twenty");
            send("cdc-t", 0, null, "{\"op\":\"d\",\"before\":{\"id\":3,\"v\":\"three\"},\"after\":null}");
            cdc.remove(3L);
            send("cdc-t", 0, null, null);
            send("cdc-t", 1, null, "{\"payload\":{\"op\":\"u\",\"before\":null,\"after\":{\"id\":4,\"v\":\"four\"}}}");
            cdc.put(4L, "four");
            send("cdc-t", 1, null, "{\"op\":\"d\",\"before\":{\"id\":4},\"after\":null}");
            cdc.remove(4L);

            // Bad records between good ones: not JSON, a wrong type, a missing non-null column, an unknown op.
            send("app-t", 1, null, "not json");
            send("app-t", 1, null, "{\"id\":\"x\",\"v\":\"bad\"}");
            send("ups-t", 0, "{\"id\":5}", "{\"v\":\"no id in key or value\"}");
            send("cdc-t", 0, null, "{\"op\":\"t\"}");
            send("app-t", 0, null, "{\"id\":100,\"v\":\"after the bad ones\"}");
            append.merge("100|after the bad ones", 1, Integer::sum);
            producer.flush();

            awaitRows(s, "app", append);
            awaitRows(s, "ups", model(upsert));
            awaitRows(s, "cdc", model(cdc));

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                JsonNode app = status(s, "app");
                assertThat(app.get("records").asLong()).isEqualTo(31);
                assertThat(app.get("errors").asLong()).isEqualTo(2);
                assertThat(app.get("lag").isNumber()).as("lag is known").isTrue();
                assertThat(app.get("lag").asLong()).isZero();
                assertThat(app.get("partitions").asInt()).isEqualTo(2);
                assertThat(app.get("state").asString()).isEqualTo("running");
            });
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<String> errors = new ArrayList<>();
                for (JsonNode r : s.get("/v1/introspection/tandem_source_errors").json().get("rows")) {
                    errors.add(r.get(0).asString() + "@" + r.get(1).asLong() + ":" + r.get(2).asLong());
                }
                // app-t partition 1 holds 15 good records then the two bad ones; ups-t partition 0 and cdc-t partition 0 their own counts.
                assertThat(errors).containsExactlyInAnyOrder("app@1:15", "app@1:16", "ups@0:" + upsertPartition0Count(), "cdc@0:7");
                JsonNode sources = s.get("/v1/introspection/tandem_sources").json().get("rows");
                assertThat(sources).hasSize(3);
                for (JsonNode r : sources) {
                    assertThat(r.get(6).asLong()).as("lag of %s", r.get(0)).isZero();
                    assertThat(r.get(11).asBoolean()).as("a single process ingests %s", r.get(0)).isTrue();
                }
            });
            JsonNode app = status(s, "app");
            assertThat(app.get("ingesting").asBoolean()).isTrue();
            // At least once each (a batch whose write failed is decoded again after the retry).
            assertThat(app.get("decoded").asLong()).as("every record of app-t decoded here, the bad ones included").isGreaterThanOrEqualTo(33);
            String metrics = s.get("/actuator/prometheus").text();
            assertThat(metrics).contains("tandem_source_lag{application=\"tandem\",source=\"app\"} 0.0",
                    "tandem_source_errors_total{application=\"tandem\",source=\"app\"} 2.0",
                    "tandem_source_records_total{application=\"tandem\",source=\"app\"} 31.0",
                    "tandem_source_ingesting{application=\"tandem\",source=\"app\"} 1.0",
                    "tandem_source_decoded_total{application=\"tandem\",source=\"app\"} ");
        }
    }

    /** Records sent to ups-t's partition 0 before its bad one: keys with an even id. */
    private static int upsertPartition0Count() {
        int n = 0;
        for (int i = 0; i < 40; i++) {
            if ((i % 9) % 2 == 0) {
                n++;
            }
        }
        return n;
    }

    private static Map<String, Integer> model(Map<Long, String> byKey) {
        Map<String, Integer> out = new TreeMap<>();
        byKey.forEach((k, v) -> out.put(k + "|" + v, 1));
        return out;
    }

    @Test
    void refusesBadDefinitionsWritesAndDropsInUse() {
        try (TandemServer s = server(Map.of())) {
            assertThat(s.get("/v1/sources/nope").status()).isEqualTo(404);
            assertThat(s.delete("/v1/sources/nope").status()).isEqualTo(404);
            TandemServer.Response bad = s.post("/v1/sources", source("x", "x-t", "sideways", "id"));
            assertThat(bad.status()).isEqualTo(400);
            assertThat(bad.isProblem()).isTrue();
            assertThat(bad.text()).contains("envelope");
            assertThat(s.post("/v1/sources", source("x", "x-t", "upsert", null)).status()).isEqualTo(422);
            assertThat(s.post("/v1/sources", source("x", "x-t", "upsert", "nosuch")).status()).isEqualTo(422);
            assertThat(s.post("/v1/sources", source("x", "x-t", "append", "id")).status()).isEqualTo(422);
            assertThat(s.post("/v1/sources", "{\"name\":\"x\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\"}]}").status()).isEqualTo(400);
            assertThat(s.get("/v1/tables/x").status()).as("nothing was created").isEqualTo(404);

            assertThat(s.post("/v1/sources", source("src", "src-t", "upsert", "id")).status()).isEqualTo(201);
            assertThat(s.post("/v1/sources", source("src", "src-t", "upsert", "id")).status()).isEqualTo(409);
            assertThat(s.get("/v1/sources").json()).hasSize(1);
            TandemServer.Response write = s.post("/v1/tables/src/rows", "{\"insert\":[[1,\"a\"]]}");
            assertThat(write.status()).isEqualTo(409);
            assertThat(write.text()).contains("Kafka source");
            assertThat(s.post("/v1/sql", "{\"sql\":\"INSERT INTO src VALUES (1, 'a')\"}").status()).isEqualTo(409);
            assertThat(s.delete("/v1/tables/src").status()).isEqualTo(409);

            assertThat(s.post("/v1/indexes", "{\"name\":\"src_by_id\",\"on\":\"src\",\"key\":[\"id\"]}").status()).isEqualTo(201);
            TandemServer.Response inUse = s.delete("/v1/sources/src");
            assertThat(inUse.status()).isEqualTo(409);
            assertThat(inUse.text()).contains("src_by_id");
            send("src-t", 0, "1", "{\"id\":1,\"v\":\"still ingesting\"}");
            producer.flush();
            awaitRows(s, "src", Map.of("1|still ingesting", 1));

            assertThat(s.delete("/v1/indexes/src_by_id").status()).isEqualTo(204);
            assertThat(s.delete("/v1/sources/src").status()).isEqualTo(204);
            assertThat(s.get("/v1/sources/src").status()).isEqualTo(404);
            assertThat(s.get("/v1/tables/src").status()).isEqualTo(404);
            assertThat(s.get("/v1/sources").json()).isEmpty();
        }
    }

    @Test
    void resumesFromRecordedOffsetsAfterRestartOnTheKafkaBackend() {
        resumesAfterRestart(Map.of("tandem.storage.backend", "kafka", "tandem.storage.kafka.bootstrap-servers", broker.getBrokersAsString(),
                "tandem.storage.kafka.topic", "tandem-log-" + System.nanoTime()), "resume-kafka");
    }

    /** Records go in before, during and after a restart; the table ends with each exactly once. */
    private void resumesAfterRestart(Map<String, Object> backend, String topic) {
        Map<String, Integer> model = new TreeMap<>();
        int n = 0;
        try (TandemServer s = server(backend)) {
            assertThat(s.post("/v1/sources", source("ev", topic, "append", null)).status()).isEqualTo(201);
            for (; n < 2000; n++) {
                send(topic, n % 2, null, "{\"id\":" + n + ",\"v\":\"r\"}");
                model.put(n + "|r", 1);
            }
            producer.flush();
            await().atMost(Duration.ofSeconds(30)).until(() -> status(s, "ev").get("records").asLong() > 0);
            for (; n < 4000; n++) {
                send(topic, n % 2, null, "{\"id\":" + n + ",\"v\":\"r\"}");
                model.put(n + "|r", 1);
            }
            producer.flush();
        }
        for (; n < 5000; n++) {
            send(topic, n % 2, null, "{\"id\":" + n + ",\"v\":\"r\"}");
            model.put(n + "|r", 1);
        }
        producer.flush();
        try (TandemServer s = server(backend)) {
            awaitRows(s, "ev", model);
            assertThat(status(s, "ev").get("records").asLong()).isEqualTo(5000);
        }
    }
}
