package dev.tandem.storage.kafka;

import static dev.tandem.storage.kafka.KafkaTesting.ok;
import static dev.tandem.storage.kafka.KafkaTesting.records;
import static dev.tandem.storage.kafka.KafkaTesting.sql;
import static dev.tandem.storage.kafka.KafkaTesting.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.deploy.GrafanaDashboardTest;
import dev.tandem.testing.ReplicaProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Kafka sources on three replicas over one log topic (child JVMs, a real KRaft broker): exactly one replica
 * reads and decodes each source's records (the others decode none and serve the table from the log), and
 * the two sources are ingested by two different replicas; when the ingester of {@code ev} is killed with
 * SIGKILL while records keep arriving, the survivors take its sources over, and every survivor's tables
 * then equal a model of the topics: each appended record once, each key at its latest value. A graceful
 * stop of one survivor then hands the sources to the last replica at once.
 */
class SourceReplicasTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int RECORDS = 6_000;
    private static final int BEFORE_KILL = 3_000;
    private static final int KEYS = 300;
    private static final Duration READY = Duration.ofSeconds(180);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 480, unit = TimeUnit.SECONDS)
    void oneReplicaIngestsAndAnotherTakesOverAfterSigkill() throws Exception {
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
            ReplicaProcess first = ReplicaProcess.start("r0", dir, args);
            replicas.add(first);
            first.awaitReady(READY);
            ok(first.post("/v1/sources", "{\"name\":\"ev\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false}],"
                    + "\"kafka\":{\"topic\":\"ev\",\"envelope\":\"append\"}}"));
            ok(first.post("/v1/sources", "{\"name\":\"kv\",\"columns\":[{\"name\":\"k\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"v\",\"type\":\"int64\"}],\"kafka\":{\"topic\":\"kv\",\"key\":[\"k\"],\"envelope\":\"upsert\"}}"));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> status(first, "ev").get("ingesting").asBoolean() && status(first, "kv").get("ingesting").asBoolean());
            // Replicas started after the sources were defined load them from the log; they join each
            // source's group, which gives the source to the member its rank picks.
            replicas.add(ReplicaProcess.start("r1", dir, args));
            replicas.add(ReplicaProcess.start("r2", dir, args));
            replicas.get(1).awaitReady(READY);
            replicas.get(2).awaitReady(READY);
            // The groups rebalance as the others join: the two sources end on two different replicas.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> ingesters(replicas, "ev").size() == 1 && ingesters(replicas, "kv").size() == 1
                            && !ingesters(replicas, "ev").equals(ingesters(replicas, "kv")));
            Map<String, Integer> ingesterOf = Map.of("ev", ingesters(replicas, "ev").get(0), "kv", ingesters(replicas, "kv").get(0));

            // The model: each appended id once; each key's latest value (a null value deletes it).
            Map<Long, Long> latest = new HashMap<>();
            int sent = 0;
            for (; sent < BEFORE_KILL; sent++) {
                send(producer, latest, sent);
            }
            KafkaTesting.send(producer, "ev", 0, null, "not json");
            producer.flush();
            for (ReplicaProcess r : replicas) {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                        .until(() -> records(r, "ev") >= BEFORE_KILL && records(r, "kv") >= BEFORE_KILL);
            }
            for (String source : List.of("ev", "kv")) {
                ReplicaProcess ingester = replicas.get(ingesterOf.get(source));
                assertThat(status(ingester, source).get("ingesting").asBoolean()).as("r%d ingests %s", ingesterOf.get(source), source).isTrue();
                assertThat(status(ingester, source).get("decoded").asLong()).as("its ingester decoded every record of %s", source)
                        .isGreaterThanOrEqualTo(BEFORE_KILL);
                for (int i = 0; i < 3; i++) {
                    if (i == ingesterOf.get(source)) {
                        continue;
                    }
                    JsonNode s = status(replicas.get(i), source);
                    assertThat(s.get("ingesting").asBoolean()).as("r%d does not ingest %s", i, source).isFalse();
                    assertThat(s.get("state").asString()).isEqualTo("standby");
                    assertThat(s.get("decoded").asLong()).as("r%d decoded nothing of %s", i, source).isZero();
                }
            }
            for (ReplicaProcess r : replicas) {
                // The refused record, kept with the batch that skipped it: every replica shows it.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> status(r, "ev").get("errors").asLong() == 1);
                // Introspection is sampled (every 100 ms, less often when sampling is slow): it shows the error a little later.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                        .until(() -> JSON.readTree(r.get("/v1/introspection/tandem_source_errors").body()).get("rows").size() > 0);
                HttpResponse<String> errors = r.get("/v1/introspection/tandem_source_errors");
                ok(errors);
                assertThat(JSON.readTree(errors.body()).get("rows")).hasSize(1);
            }
            // Sampled introspection catches up within a few samples.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .untilAsserted(() -> assertIntrospectionShowsTheIngesters(replicas, ingesterOf));
            assertDashboardSeriesExist(replicas.get(ingesterOf.get("ev")));
            assertDashboardSeriesExist(replicas.get((ingesterOf.get("ev") + 1) % 3));

            // SIGKILL the ingester of ev while records keep arriving.
            for (; sent < BEFORE_KILL + 500; sent++) {
                send(producer, latest, sent);
            }
            ReplicaProcess killed = replicas.get(ingesterOf.get("ev"));
            killed.kill();
            for (; sent < RECORDS; sent++) {
                send(producer, latest, sent);
            }
            producer.flush();

            List<ReplicaProcess> survivors = replicas.stream().filter(r -> r != killed).toList();
            for (ReplicaProcess r : survivors) {
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                        .until(() -> records(r, "ev") >= RECORDS && records(r, "kv") >= RECORDS);
            }
            for (String source : List.of("ev", "kv")) {
                for (ReplicaProcess r : survivors) {
                    assertThat(status(r, source).get("records").asLong()).as("records of %s counted with the rows", source).isEqualTo(RECORDS);
                }
                // A change of members may move a source between survivors too (its rank is taken modulo
                // their number), so either may have decoded some of it, and for the moment of a hand-over
                // neither ingests it; then one does.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                        .until(() -> ingesters(survivors, source).size() == 1);
            }

            for (ReplicaProcess r : survivors) {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                        .until(() -> sql(r, "SELECT id FROM ev").size() == RECORDS);
                Map<Long, Integer> ids = new TreeMap<>();
                for (JsonNode row : sql(r, "SELECT id FROM ev")) {
                    ids.merge(row.get(0).asLong(), 1, Integer::sum);
                }
                assertThat(ids).as("every appended record exactly once").hasSize(RECORDS);
                assertThat(ids.values()).containsOnly(1);
                assertThat(ids.keySet()).first().isEqualTo(0L);
                assertThat(ids.keySet()).last().isEqualTo(RECORDS - 1L);
                Map<Long, Long> kv = new TreeMap<>();
                for (JsonNode row : sql(r, "SELECT k, v FROM kv")) {
                    assertThat(kv.put(row.get(0).asLong(), row.get(1).asLong())).as("one row per key").isNull();
                }
                assertThat(kv).isEqualTo(new TreeMap<>(latest));
            }

            // A graceful stop leaves the groups at once: the last replica takes over and ingests the rest.
            ReplicaProcess ingester = status(survivors.get(0), "ev").get("ingesting").asBoolean() ? survivors.get(0) : survivors.get(1);
            ReplicaProcess last = ingester == survivors.get(0) ? survivors.get(1) : survivors.get(0);
            ingester.close();
            for (; sent < RECORDS + 1000; sent++) {
                send(producer, latest, sent);
            }
            producer.flush();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                    .until(() -> records(last, "ev") >= RECORDS + 1000 && records(last, "kv") >= RECORDS + 1000);
            assertThat(status(last, "ev").get("ingesting").asBoolean()).isTrue();
            assertThat(records(last, "ev")).isEqualTo(RECORDS + 1000);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> sql(last, "SELECT id FROM ev").size() == RECORDS + 1000);
            Map<Long, Long> kv = new TreeMap<>();
            for (JsonNode row : sql(last, "SELECT k, v FROM kv")) {
                kv.put(row.get(0).asLong(), row.get(1).asLong());
            }
            assertThat(kv).isEqualTo(new TreeMap<>(latest));
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

    /** Sends record {@code i} of both topics and records it in the model. */
    private static void send(KafkaProducer<byte[], byte[]> producer, Map<Long, Long> latest, int i) {
        KafkaTesting.send(producer, "ev", i % 2, null, "{\"id\":" + i + "}");
        long k = (i * 7L) % KEYS;
        if (i % 11 == 10) {
            KafkaTesting.send(producer, "kv", (int) (k % 2), Long.toString(k), null);
            latest.remove(k);
        } else {
            KafkaTesting.send(producer, "kv", (int) (k % 2), Long.toString(k), "{\"k\":" + k + ",\"v\":" + i + "}");
            latest.put(k, (long) i);
        }
    }


    /** The indexes of the replicas whose {@code GET /v1/sources/{source}} says they ingest it. */
    private static List<Integer> ingesters(List<ReplicaProcess> replicas, String source) throws Exception {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < replicas.size(); i++) {
            if (status(replicas.get(i), source).get("ingesting").asBoolean()) {
                out.add(i);
            }
        }
        return out;
    }

    /** {@code tandem_sources} on each replica: the ingesting column is true on each source's ingester only. */
    private static void assertIntrospectionShowsTheIngesters(List<ReplicaProcess> replicas, Map<String, Integer> ingesterOf) throws Exception {
        for (int i = 0; i < replicas.size(); i++) {
            HttpResponse<String> r = replicas.get(i).get("/v1/introspection/tandem_sources");
            ok(r);
            JsonNode body = JSON.readTree(r.body());
            List<String> columns = new ArrayList<>();
            body.get("columns").forEach(c -> columns.add(c.asString()));
            int ingesting = columns.indexOf("ingesting");
            assertThat(ingesting).as("tandem_sources has an ingesting column").isNotNegative();
            assertThat(body.get("rows")).hasSize(2);
            for (JsonNode row : body.get("rows")) {
                assertThat(row.get(ingesting).asBoolean()).as("r%d ingests %s", i, row.get(0).asString())
                        .isEqualTo(i == ingesterOf.get(row.get(0).asString()));
            }
        }
    }

    /** Every source series the Grafana dashboard queries is on the replica's {@code /actuator/prometheus}. */
    private static void assertDashboardSeriesExist(ReplicaProcess replica) throws Exception {
        HttpResponse<String> r = replica.get("/actuator/prometheus");
        ok(r);
        for (String name : GrafanaDashboardTest.SOURCE_METRICS) {
            assertThat(r.body()).as("series %s", name).contains("\n" + name + "{");
            assertThat(r.body()).as("series %s of source ev", name).containsPattern("\n" + name + "\\{[^}]*source=\"ev\"");
        }
    }




}
