package dev.tandem.storage.kafka;

import static dev.tandem.storage.kafka.KafkaTesting.ok;
import static dev.tandem.storage.kafka.KafkaTesting.records;
import static dev.tandem.storage.kafka.KafkaTesting.send;
import static dev.tandem.storage.kafka.KafkaTesting.sql;
import static dev.tandem.storage.kafka.KafkaTesting.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.testing.ReplicaProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sources created and dropped while two replicas run (child JVMs over one real KRaft broker): sources
 * created through r0 reach r1 through the log without a restart, the four of them are ingested two by each
 * replica, r1 serves the records r0 ingests and the other way round, a source r1 ingests, dropped through
 * r0 while its records keep coming, stops on r1 too, and when r0 is killed with SIGKILL, r1 takes its sources over: every table then holds each
 * record of a naive model of the topics exactly once.
 */
class SourceLiveReplicasTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<String> SOURCES = List.of("s0", "s1", "s2", "s3");
    private static final int BEFORE_KILL = 300;
    private static final int AFTER_KILL = 300;
    private static final Duration READY = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void sourcesReachRunningReplicasSpreadOverThemAndFailOver() throws Exception {
        KafkaTesting.quietLogs();
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 2);
        broker.brokerProperties(Map.of("group.initial.rebalance.delay.ms", "0"));
        broker.afterPropertiesSet();
        String servers = broker.getBrokersAsString();
        List<String> args = List.of("--tandem.storage.backend=kafka", "--tandem.storage.kafka.bootstrap-servers=" + servers,
                "--tandem.storage.kafka.topic=tandem-log", "--tandem.sources.bootstrap-servers=" + servers,
                "--tandem.sources.failover-timeout=6s");
        List<ReplicaProcess> replicas = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = KafkaTesting.producer(servers)) {
            replicas.add(ReplicaProcess.start("r0", dir, args));
            replicas.add(ReplicaProcess.start("r1", dir, args));
            ReplicaProcess r0 = replicas.get(0).awaitReady(READY);
            ReplicaProcess r1 = replicas.get(1).awaitReady(READY);

            // Both replicas run; the sources are created through r0 only.
            for (String s : SOURCES) {
                ok(r0.post("/v1/sources", "{\"name\":\"" + s + "\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false}],"
                        + "\"kafka\":{\"topic\":\"" + s + "\",\"envelope\":\"append\"}}"));
            }
            for (String s : SOURCES) {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                        .until(() -> r1.get("/v1/sources/" + s).statusCode() == 200);
            }

            // Spread: each source has one ingester, and each replica ingests two of the four.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions().until(() -> {
                Map<Integer, List<String>> spread = ingestedBy(replicas);
                List<String> all = new ArrayList<>(spread.get(0));
                all.addAll(spread.get(1));
                return spread.get(0).size() == 2 && spread.get(1).size() == 2 && all.containsAll(SOURCES);
            });

            // Records of every source, read on both replicas, whichever ingests them.
            Map<String, List<Long>> model = new HashMap<>();
            long id = 0;
            for (int i = 0; i < BEFORE_KILL; i++) {
                for (String s : SOURCES) {
                    send(producer, model, s, id++);
                }
            }
            producer.flush();
            for (ReplicaProcess r : replicas) {
                for (String s : SOURCES) {
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                            .until(() -> records(r, s) == BEFORE_KILL);
                    assertEqualsModel(r, s, model.get(s));
                }
            }

            // A drop through r0 of a source r1 ingests, while its records keep coming (r1's batches race
            // the drop's guarded removal), stops the source on r1 too, and r1 forgets its table.
            String dropped = ingestedBy(replicas).get(1).get(0);
            Thread feeder = Thread.ofPlatform().start(() -> {
                for (long i = 0; i < 200 && !Thread.currentThread().isInterrupted(); i++) {
                    producer.send(new ProducerRecord<>(dropped, (int) (i % 2), null, ("{\"id\":" + (1_000_000 + i) + "}").getBytes(StandardCharsets.UTF_8)));
                    producer.flush();
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> records(r1, dropped) > BEFORE_KILL);
            try {
                ok(r0.delete("/v1/sources/" + dropped));
            } finally {
                feeder.interrupt();
                feeder.join(10_000);
            }
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> r1.get("/v1/sources/" + dropped).statusCode() == 404
                            && r1.post("/v1/sql", "{\"sql\":\"SELECT id FROM " + dropped + "\"}").statusCode() / 100 == 4);
            assertThat(JSON.readTree(r1.get("/v1/sources").body()).toString()).doesNotContain("\"" + dropped + "\"");
            assertThat(r0.get("/v1/sources/" + dropped).statusCode()).isEqualTo(404);
            List<String> live = SOURCES.stream().filter(x -> !x.equals(dropped)).toList();

            // SIGKILL r0 while records keep coming: r1 takes every source over, nothing lost or repeated.
            for (int i = 0; i < AFTER_KILL / 2; i++) {
                for (String s : live) {
                    send(producer, model, s, id++);
                }
            }
            producer.flush();
            r0.kill();
            for (int i = AFTER_KILL / 2; i < AFTER_KILL; i++) {
                for (String s : live) {
                    send(producer, model, s, id++);
                }
            }
            producer.flush();
            for (String s : live) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                        .until(() -> records(r1, s) >= BEFORE_KILL + AFTER_KILL);
                JsonNode status = status(r1, s);
                assertThat(status.get("ingesting").asBoolean()).as("r1 ingests %s", s).isTrue();
                assertThat(status.get("records").asLong()).isEqualTo(BEFORE_KILL + AFTER_KILL);
                assertEqualsModel(r1, s, model.get(s));
            }
        } catch (AssertionError | RuntimeException e) {
            StringBuilder logs = new StringBuilder();
            for (int i = 0; i < replicas.size(); i++) {
                logs.append("\nr").append(i).append(" log:\n").append(replicas.get(i).logTail());
            }
            throw new AssertionError(e.getMessage() + logs, e);
        } finally {
            for (ReplicaProcess r : replicas) {
                r.close();
            }
            broker.destroy();
        }
    }

    /** Which sources each replica says it ingests, by replica index. */
    private static Map<Integer, List<String>> ingestedBy(List<ReplicaProcess> replicas) throws Exception {
        Map<Integer, List<String>> out = new TreeMap<>();
        for (int i = 0; i < replicas.size(); i++) {
            List<String> mine = new ArrayList<>();
            for (String s : SOURCES) {
                if (status(replicas.get(i), s).get("ingesting").asBoolean()) {
                    mine.add(s);
                }
            }
            out.put(i, mine);
        }
        return out;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, Map<String, List<Long>> model, String topic, long id) {
        producer.send(new ProducerRecord<>(topic, (int) (id % 2), null, ("{\"id\":" + id + "}").getBytes(StandardCharsets.UTF_8)));
        model.computeIfAbsent(topic, k -> new ArrayList<>()).add(id);
    }

    /** The source's table on {@code r} holds each id the model sent to its topic, once, and nothing else. */
    private static void assertEqualsModel(ReplicaProcess r, String source, List<Long> expected) throws Exception {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> idsOf(r, source).size() == expected.size());
        Map<Long, Integer> counts = new TreeMap<>();
        for (JsonNode row : idsOf(r, source)) {
            counts.merge(row.get(0).asLong(), 1, Integer::sum);
        }
        Map<Long, Integer> want = new TreeMap<>();
        expected.forEach(x -> want.put(x, 1));
        assertThat(counts).as("%s on port %d", source, r.port).isEqualTo(want);
    }

    private static List<JsonNode> idsOf(ReplicaProcess server, String source) throws Exception {
        return sql(server, "SELECT id FROM " + source);
    }
}
