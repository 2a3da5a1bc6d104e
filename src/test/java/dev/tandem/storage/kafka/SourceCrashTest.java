package dev.tandem.storage.kafka;

import static dev.tandem.storage.kafka.KafkaTesting.ok;
import static dev.tandem.storage.kafka.KafkaTesting.records;
import static dev.tandem.storage.kafka.KafkaTesting.send;
import static dev.tandem.storage.kafka.KafkaTesting.sql;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.testing.ReplicaProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Exactly-once ingestion across a crash: a Tandem server (child JVM, local log) ingests an append
 * source and an upsert source while records keep arriving, is killed with SIGKILL mid-ingestion, and
 * restarts; the tables then equal a model of the topics, with every appended record once (nothing lost,
 * nothing repeated) and every key at its latest value.
 */
class SourceCrashTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int RECORDS = 12_000;
    private static final int KEYS = 500;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sigkillDuringIngestionNeitherLosesNorRepeatsRecords() throws Exception {
        KafkaTesting.quietLogs();
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 2);
        broker.afterPropertiesSet();
        String servers = broker.getBrokersAsString();
        List<String> args = List.of("--tandem.sources.bootstrap-servers=" + servers);
        ReplicaProcess server = null;
        try (KafkaProducer<byte[], byte[]> producer = KafkaTesting.producer(servers)) {
            server = ReplicaProcess.start("crash", dir, args).awaitReady(Duration.ofSeconds(180));
            ok(server.post("/v1/sources", "{\"name\":\"ev\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false}],"
                    + "\"kafka\":{\"topic\":\"ev\",\"envelope\":\"append\"}}"));
            ok(server.post("/v1/sources", "{\"name\":\"kv\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"v\",\"type\":\"int64\"}],\"kafka\":{\"topic\":\"kv\",\"key\":[\"k\"],\"envelope\":\"upsert\"}}"));

            // The model: each appended id once; each key's latest value (a null value deletes it).
            Map<Long, Long> latest = new HashMap<>();
            int sent = 0;
            long killedAt = -1;
            for (; sent < RECORDS; sent++) {
                send(producer, "ev", sent % 2, null, "{\"id\":" + sent + "}");
                long k = (sent * 7L) % KEYS;
                if (sent % 11 == 10) {
                    send(producer, "kv", (int) (k % 2), Long.toString(k), null);
                    latest.remove(k);
                } else {
                    send(producer, "kv", (int) (k % 2), Long.toString(k), "{\"k\":" + k + ",\"v\":" + sent + "}");
                    latest.put(k, (long) sent);
                }
                if (sent % 500 == 499 && killedAt < 0) {
                    producer.flush();
                    if (sent + 1 >= RECORDS / 2) {
                        // A slow machine may not have started ingesting yet: hold the producer (bounded)
                        // until it has, so the kill still lands mid-ingestion with half the records to come.
                        ReplicaProcess running = server;
                        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                                .until(() -> records(running, "ev") >= 2000);
                    }
                    long ingested = records(server, "ev");
                    if (ingested >= 2000) {
                        server.kill();
                        killedAt = ingested;
                    }
                }
            }
            producer.flush();
            assertThat(killedAt).as("the server was killed while records were still arriving").isBetween(1L, RECORDS - 500L);

            server = ReplicaProcess.start("crash", dir, args).awaitReady(Duration.ofSeconds(180));
            ReplicaProcess restarted = server;
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> records(restarted, "ev") >= RECORDS && records(restarted, "kv") >= RECORDS);
            assertThat(records(server, "ev")).as("records ingested, counted with the rows").isEqualTo(RECORDS);
            assertThat(records(server, "kv")).isEqualTo(RECORDS);

            Map<Long, Integer> ids = new TreeMap<>();
            for (JsonNode row : sql(server, "SELECT id FROM ev")) {
                ids.merge(row.get(0).asLong(), 1, Integer::sum);
            }
            assertThat(ids).as("every appended record exactly once").hasSize(RECORDS);
            assertThat(ids.values()).containsOnly(1);
            assertThat(ids.keySet()).first().isEqualTo(0L);
            assertThat(ids.keySet()).last().isEqualTo(RECORDS - 1L);

            Map<Long, Long> kv = new TreeMap<>();
            for (JsonNode row : sql(server, "SELECT k, v FROM kv")) {
                assertThat(kv.put(row.get(0).asLong(), row.get(1).asLong())).as("one row per key").isNull();
            }
            assertThat(kv).isEqualTo(new TreeMap<>(latest));
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(e.getMessage() + (server == null ? "" : "\nserver log:\n" + server.logTail()), e);
        } finally {
            if (server != null) {
                server.close();
            }
            broker.destroy();
        }
    }




}
