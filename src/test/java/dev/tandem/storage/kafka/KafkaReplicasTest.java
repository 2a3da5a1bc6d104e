package dev.tandem.storage.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tandem.testing.ReplicaProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Three Tandem replicas (child JVMs) over one real Kafka broker (KRaft): writes spread over the
 * replicas, each acknowledged write read back at its timestamp on another replica; one replica is
 * killed with SIGKILL mid-load while the others keep taking writes and reads, then restarted; at the
 * end every replica answers, at the last acknowledged timestamp and with a strict read, exactly the
 * acknowledged rows (plus, at most once each, writes in flight to the killed replica, whose fate its
 * clients never learned). Its waits are generous: on a two-core machine loaded by other builds a child
 * JVM took over a minute to start (the test took 3 to 3.5 minutes there).
 */
class KafkaReplicasTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int WRITERS = 3;
    private static final long ID_SPACE = 1_000_000;

    @TempDir
    Path dir;

    private final AtomicReferenceArray<ReplicaProcess> replicas = new AtomicReferenceArray<>(3);
    private final Map<Long, Long> acknowledged = new ConcurrentHashMap<>();
    private final Set<Long> uncertain = ConcurrentHashMap.newKeySet();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();

    @Test
    @Timeout(value = 600, unit = TimeUnit.SECONDS)
    void replicasAgreeReadTheirWritesAndSurviveSigkill() throws Exception {
        KafkaTesting.quietLogs();
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        String servers = broker.getBrokersAsString();
        List<Thread> writers = new ArrayList<>();
        try {
            ReplicaProcess first = ReplicaProcess.start("r0", servers, "tandem-log", dir);
            replicas.set(0, first);
            awaitReady(first);
            ok(first.post("/v1/tables", "{\"name\":\"events\",\"columns\":[{\"name\":\"id\",\"type\":\"int64\",\"nullable\":false},"
                    + "{\"name\":\"writer\",\"type\":\"int64\"},{\"name\":\"seq\",\"type\":\"int64\"}]}"));
            ok(first.post("/v1/indexes", "{\"name\":\"events_by_id\",\"on\":\"events\",\"key\":[\"id\"]}"));
            // Later replicas learn the catalog from the log when they start.
            replicas.set(1, ReplicaProcess.start("r1", servers, "tandem-log", dir));
            replicas.set(2, ReplicaProcess.start("r2", servers, "tandem-log", dir));
            awaitReady(replicas.get(1));
            awaitReady(replicas.get(2));

            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Thread t = new Thread(() -> write(writer), "writer-" + w);
                t.start();
                writers.add(t);
            }
            awaitAcknowledged(40);
            ReplicaProcess victim = replicas.getAndSet(2, null);
            victim.kill();
            awaitAcknowledged(acknowledged.size() + 40);
            ReplicaProcess back = ReplicaProcess.start("r2", servers, "tandem-log", dir);
            awaitReady(back);
            replicas.set(2, back);
            awaitAcknowledged(acknowledged.size() + 40);
            stop.set(true);
            for (Thread t : writers) {
                t.join(30_000);
            }
            assertThat(violations).isEmpty();

            long last = acknowledged.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            Set<Long> reference = null;
            for (int i = 0; i < 3; i++) {
                ReplicaProcess r = replicas.get(i);
                Set<Long> atLast = ids(r.post("/v1/peek", "{\"from\":\"events_by_id\",\"as_of\":" + last + ",\"timeout_ms\":30000}"));
                assertThat(atLast).as("replica %d holds every acknowledged write", i).containsAll(acknowledged.keySet());
                Set<Long> extra = new HashSet<>(atLast);
                extra.removeAll(acknowledged.keySet());
                assertThat(uncertain).as("replica %d holds nothing but acknowledged and in-flight writes", i).containsAll(extra);
                Set<Long> strict = ids(r.post("/v1/peek", "{\"from\":\"events\",\"isolation\":\"strict\"}"));
                assertThat(strict).as("replica %d: a strict read after the load", i).isEqualTo(atLast);
                if (reference == null) {
                    reference = atLast;
                }
                assertThat(atLast).as("replica %d agrees with replica 0", i).isEqualTo(reference);
            }

            // A definition made on one replica after the others started reaches them through the log; they
            // serve it and may define more, which reaches the first replica in turn.
            ok(replicas.get(0).post("/v1/tables", "{\"name\":\"late\",\"columns\":[{\"name\":\"x\",\"type\":\"int64\"}]}"));
            ReplicaProcess other = replicas.get(1);
            await().atMost(Duration.ofSeconds(30)).until(() -> other.get("/v1/tables/late").statusCode() == 200);
            ok(other.post("/v1/tables", "{\"name\":\"later\",\"columns\":[{\"name\":\"x\",\"type\":\"int64\"}]}"));
            await().atMost(Duration.ofSeconds(30)).until(() -> replicas.get(0).get("/v1/tables/later").statusCode() == 200);
        } finally {
            stop.set(true);
            for (Thread t : writers) {
                t.join(30_000);
            }
            for (int i = 0; i < 3; i++) {
                ReplicaProcess r = replicas.get(i);
                if (r != null) {
                    r.close();
                }
            }
            broker.destroy();
        }
    }

    /** One writer: inserts rows with ids of its own, spread round-robin over the live replicas, and reads each back elsewhere. */
    private void write(int writer) {
        for (long seq = 0; !stop.get(); seq++) {
            long id = writer * ID_SPACE + seq;
            int target = (int) ((writer + seq) % 3);
            ReplicaProcess to = live(target);
            if (to == null) {
                continue;
            }
            long time;
            try {
                HttpResponse<String> r = to.post("/v1/tables/events/rows", "{\"insert\":[[" + id + "," + writer + "," + seq + "]]}");
                if (r.statusCode() / 100 != 2) {
                    uncertain.add(id);
                    continue;
                }
                time = JSON.readTree(r.body()).get("timestamp").asLong();
            } catch (Exception e) {
                uncertain.add(id);
                continue;
            }
            acknowledged.put(id, time);
            // Read your write on another replica, with the token the write returned.
            ReplicaProcess other = live(target + 1);
            if (other == null) {
                continue;
            }
            try {
                HttpResponse<String> r = other.post("/v1/peek", "{\"from\":\"events_by_id\",\"key\":[[" + id + "]],\"as_of\":" + time
                        + ",\"timeout_ms\":30000}");
                if (r.statusCode() == 200) {
                    JsonNode rows = JSON.readTree(r.body()).get("rows");
                    String want = "[[" + id + "," + writer + "," + seq + "]]";
                    if (!rows.toString().equals(want)) {
                        violations.add("read-your-writes at " + time + " on port " + other.port + ": " + rows + ", expected " + want);
                    }
                } else if (replicas.get(0) == other || !other.equals(live((target + 1) % 3))) {
                    violations.add("read at " + time + " answered " + r.statusCode() + ": " + r.body());
                }
            } catch (Exception e) {
                // The reader was the replica being killed; its answer is lost, not wrong.
            }
        }
    }

    /** The live replica at or after slot {@code from} (mod 3), or null if none is up. */
    private ReplicaProcess live(int from) {
        for (int i = 0; i < 3; i++) {
            ReplicaProcess r = replicas.get((from + i) % 3);
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private void awaitAcknowledged(int count) {
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= count || !violations.isEmpty());
        assertThat(violations).isEmpty();
    }

    private static void awaitReady(ReplicaProcess r) {
        try {
            r.awaitReady(Duration.ofSeconds(180));
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError("replica on port " + r.port + " not ready:\n" + r.logTail(), e);
        }
    }

    private static void ok(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isBetween(200, 299);
    }

    /** The ids of a peek's rows; fails on a duplicate or a row that is not what its id says. */
    private static Set<Long> ids(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Set<Long> out = new HashSet<>();
        for (JsonNode row : JSON.readTree(r.body()).get("rows")) {
            long id = row.get(0).asLong();
            assertThat(out.add(id)).as("row %s appears once", row).isTrue();
            assertThat(row.get(1).asLong()).isEqualTo(id / ID_SPACE);
            assertThat(row.get(2).asLong()).isEqualTo(id % ID_SPACE);
        }
        return out;
    }
}
