package dev.tandem.storage.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tandem.testing.ReplicaProcess;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Shared fixtures of the Kafka tests. */
final class KafkaTesting {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private KafkaTesting() {
    }

    /** Keeps the embedded broker's and the clients' INFO chatter (configuration dumps) out of the build log. */
    static void quietLogs() {
        for (String name : new String[] {"org.apache.kafka", "kafka", "org.apache.zookeeper", "state.change.logger"}) {
            ((Logger) LoggerFactory.getLogger(name)).setLevel(Level.WARN);
        }
    }

    /** A producer of raw bytes to {@code servers}, acknowledged by every in-sync replica. */
    static KafkaProducer<byte[], byte[]> producer(String servers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends a UTF-8 record (a null key or value stays null) to {@code partition} of {@code topic}. */
    static void send(KafkaProducer<byte[], byte[]> producer, String topic, int partition, String key, String value) {
        producer.send(new ProducerRecord<>(topic, partition, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code GET /v1/sources/{source}} on {@code server}. */
    static JsonNode status(ReplicaProcess server, String source) throws Exception {
        HttpResponse<String> r = server.get("/v1/sources/" + source);
        ok(r);
        return JSON.readTree(r.body());
    }

    /** The records {@code source} has ingested, as {@code server} reports them. */
    static long records(ReplicaProcess server, String source) throws Exception {
        return status(server, source).get("records").asLong();
    }

    /** The rows {@code query} answers through {@code POST /v1/sql} on {@code server}. */
    static List<JsonNode> sql(ReplicaProcess server, String query) throws Exception {
        HttpResponse<String> r = server.post("/v1/sql", "{\"sql\":\"" + query + "\"}");
        ok(r);
        List<JsonNode> rows = new ArrayList<>();
        JSON.readTree(r.body()).get("rows").forEach(rows::add);
        return rows;
    }

    static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
    }
}
