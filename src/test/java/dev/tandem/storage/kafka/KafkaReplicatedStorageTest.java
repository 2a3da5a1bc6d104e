package dev.tandem.storage.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import dev.tandem.storage.CatalogSwap;
import dev.tandem.storage.RowDiff;
import dev.tandem.storage.StorageOptions;
import dev.tandem.storage.TableEvent;
import dev.tandem.storage.TableStorage;
import dev.tandem.storage.TableStorages;
import dev.tandem.storage.TableUpdate;
import dev.tandem.storage.UniqueKey;
import dev.tandem.storage.UniqueViolationException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Replicated storages over one real Kafka broker (KRaft, in this JVM): every replica applies the same
 * log to the same tables with the same timestamps, rejects the same writes, and a late replica catches up.
 */
class KafkaReplicatedStorageTest {

    private static final Schema KV = new Schema(List.of(
            new Column("k", DatumType.INT64, false),
            new Column("v", DatumType.INT64, true)));
    private static final AtomicInteger TOPICS = new AtomicInteger();

    private static EmbeddedKafkaKraftBroker broker;
    private static Scheduler timer;

    @BeforeAll
    static void startBroker() {
        KafkaTesting.quietLogs();
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.afterPropertiesSet();
        timer = Schedulers.newParallel("kafka-test-timer", 1);
    }

    @AfterAll
    static void stopBroker() {
        timer.dispose();
        broker.destroy();
    }

    private static TableStorage replica(String topic) {
        KafkaSharedLog log = KafkaSharedLog.open(broker.getBrokersAsString(), topic, (short) 1, Duration.ofSeconds(20));
        return TableStorages.replicated(log, StorageOptions.defaults(timer).withFsync(false));
    }

    private static Row kv(long k, long v) {
        return Row.of(k, v);
    }

    /** Every update of {@code id} at or after time 0 up to {@code until}, as (row, time) → diff. */
    private static Map<List<Object>, Long> history(TableStorage s, String id, long until) {
        List<TableEvent> events = s.subscribe(id, 0)
                .takeUntil(e -> e instanceof TableEvent.Progress p && p.upper().isPast(until))
                .collectList().block(Duration.ofSeconds(30));
        Map<List<Object>, Long> out = new HashMap<>();
        for (TableEvent e : events) {
            if (e instanceof TableEvent.Updates u) {
                for (TableUpdate x : u.updates()) {
                    out.merge(List.of(x.row().toString(), x.time()), x.diff(), Long::sum);
                }
            }
        }
        out.values().removeIf(d -> d == 0);
        return out;
    }

    @Test
    void replicasAgreeOnTablesTimestampsAndRejections() {
        String topic = "log-" + TOPICS.incrementAndGet();
        try (TableStorage a = replica(topic); TableStorage b = replica(topic)) {
            a.createTable("t", KV);
            await().atMost(Duration.ofSeconds(20)).until(() -> b.tables().contains("t"));
            assertThatThrownBy(() -> a.createTable("t", KV)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exists");
            // b defines too, and a learns it from the log.
            b.createTable("t2", KV);
            await().atMost(Duration.ofSeconds(20)).until(() -> a.tables().contains("t2"));

            // Writes from both replicas, concurrently; each is acknowledged with a timestamp both agree on.
            List<Long> times = Flux.range(0, 200)
                    .flatMap(i -> (i % 2 == 0 ? a : b).write("t", List.of(RowDiff.insert(kv(i, i * 10L)))), 16)
                    .collectList().block(Duration.ofSeconds(60));
            assertThat(times).hasSize(200).doesNotHaveDuplicates();
            long last = times.stream().mapToLong(Long::longValue).max().orElseThrow();

            // Two replicas each delete the same single row: the log orders them, exactly one wins everywhere.
            Row victim = kv(7, 70);
            List<String> outcomes = Flux.merge(
                            a.write("t", List.of(RowDiff.delete(victim))).map(t -> "ok").onErrorResume(IllegalArgumentException.class, e -> reactor.core.publisher.Mono.just("rejected")),
                            b.write("t", List.of(RowDiff.delete(victim))).map(t -> "ok").onErrorResume(IllegalArgumentException.class, e -> reactor.core.publisher.Mono.just("rejected")))
                    .collectList().block(Duration.ofSeconds(30));
            assertThat(outcomes).containsExactlyInAnyOrder("ok", "rejected");
            long end = Math.max(last, a.lastWriteTime()) + 1;

            // A write's timestamp is readable at once on the replica that made it and, once applied, on the other.
            await().atMost(Duration.ofSeconds(20)).until(() -> b.upper("t").isPast(end - 1) && a.upper("t").isPast(end - 1));
            Map<List<Object>, Long> ha = history(a, "t", end - 1);
            Map<List<Object>, Long> hb = history(b, "t", end - 1);
            assertThat(ha).isEqualTo(hb);
            assertThat(ha.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(200 - 1);
            for (long t : times) {
                assertThat(ha.keySet().stream().filter(k -> k.get(1).equals(t)).count()).as("one write at " + t).isEqualTo(1);
            }

            // A replica that starts later replays the log to the same state before it serves.
            try (TableStorage c = replica(topic)) {
                assertThat(c.tables()).containsExactly("t", "t2");
                assertThat(c.lastWriteTime()).isEqualTo(a.lastWriteTime());
                assertThat(history(c, "t", end - 1)).isEqualTo(ha);
            }
        }
    }

    /** Two replicas write the same batch guarded by the same progress (two source ingesters racing): exactly one applies, everywhere. */
    @Test
    void guardedWritesRacingFromTwoReplicasApplyOnceEverywhere() {
        String topic = "log-" + TOPICS.incrementAndGet();
        try (TableStorage a = replica(topic); TableStorage b = replica(topic)) {
            a.createTable("t", KV);
            await().atMost(Duration.ofSeconds(20)).until(() -> b.tables().contains("t"));
            CatalogSwap swap = new CatalogSwap("progress", null, Map.of("progress", "next=1"), List.of());
            List<String> outcomes = Flux.merge(
                            a.write("t", List.of(RowDiff.insert(kv(1, 1))), swap).map(t -> "ok")
                                    .onErrorResume(IllegalArgumentException.class, e -> reactor.core.publisher.Mono.just("rejected")),
                            b.write("t", List.of(RowDiff.insert(kv(1, 1))), swap).map(t -> "ok")
                                    .onErrorResume(IllegalArgumentException.class, e -> reactor.core.publisher.Mono.just("rejected")))
                    .collectList().block(Duration.ofSeconds(30));
            assertThat(outcomes).containsExactlyInAnyOrder("ok", "rejected");
            // The next batch, guarded by the progress the winner recorded, applies from either replica.
            long last = b.write("t", List.of(RowDiff.insert(kv(2, 2))), new CatalogSwap("progress", "next=1", Map.of("progress", "next=2"), List.of()))
                    .block(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(20)).until(() -> a.upper("t").isPast(last));
            for (TableStorage s : List.of(a, b)) {
                assertThat(s.catalogEntries()).containsEntry("progress", "next=2");
                assertThat(history(s, "t", last).values().stream().mapToLong(Long::longValue).sum()).isEqualTo(2);
            }
        }
    }

    /** Two replicas insert the same primary key at once: the log orders them, exactly one wins everywhere, and keys survive catch-up. */
    @Test
    void keysAreEnforcedAlikeOnEveryReplica() {
        String topic = "log-" + TOPICS.incrementAndGet();
        List<UniqueKey> keys = List.of(new UniqueKey("t_pkey", List.of(0), true));
        try (TableStorage a = replica(topic); TableStorage b = replica(topic)) {
            a.createTable("t", KV, keys);
            await().atMost(Duration.ofSeconds(20)).until(() -> b.tables().contains("t"));
            assertThat(b.keys("t")).isEqualTo(keys);
            for (long k = 0; k < 10; k++) {
                long key = k;
                List<String> outcomes = Flux.merge(
                                a.write("t", List.of(RowDiff.insert(kv(key, 1)))).map(t -> "ok")
                                        .onErrorResume(UniqueViolationException.class, e -> reactor.core.publisher.Mono.just(e.constraint())),
                                b.write("t", List.of(RowDiff.insert(kv(key, 2)))).map(t -> "ok")
                                        .onErrorResume(UniqueViolationException.class, e -> reactor.core.publisher.Mono.just(e.constraint())))
                        .collectList().block(Duration.ofSeconds(30));
                assertThat(outcomes).containsExactlyInAnyOrder("ok", "t_pkey");
            }
            // a replacement of a key's row in one write is no duplicate
            boolean aWon = history(b, "t", b.lastWriteTime()).keySet().stream().anyMatch(h -> h.get(0).equals(kv(3, 1).toString()));
            long last = b.write("t", List.of(RowDiff.delete(aWon ? kv(3, 1) : kv(3, 2)), RowDiff.insert(kv(3, 3)))).block(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(20)).until(() -> a.upper("t").isPast(last));
            Map<List<Object>, Long> ha = history(a, "t", last);
            assertThat(history(b, "t", last)).isEqualTo(ha);
            try (TableStorage c = replica(topic)) {
                assertThat(c.keys("t")).isEqualTo(keys);
                assertThat(history(c, "t", last)).isEqualTo(ha);
                assertThatThrownBy(() -> c.write("t", List.of(RowDiff.insert(kv(3, 9)))).block(Duration.ofSeconds(30)))
                        .isInstanceOf(UniqueViolationException.class).hasMessageContaining("\"t_pkey\"");
            }
        }
    }

    @Test
    void catalogEntriesAndBadWritesBehaveAsOnTheLocalLog() {
        String topic = "log-" + TOPICS.incrementAndGet();
        try (TableStorage a = replica(topic); TableStorage b = replica(topic)) {
            a.putCatalogEntry("table/x", "{\"a\":1}");
            await().atMost(Duration.ofSeconds(20)).until(() -> b.catalogEntries().containsKey("table/x"));
            a.removeCatalogEntry("table/x");
            assertThat(a.catalogEntries()).isEmpty();
            await().atMost(Duration.ofSeconds(20)).until(() -> b.catalogEntries().isEmpty());
            // Any replica may change the catalog; of two guarded changes made from the same value, the one
            // the log orders second is refused on the replica that made it and changes nothing anywhere.
            b.putCatalogEntry("table/y", "{}");
            a.changeCatalog(new CatalogSwap("version", null, Map.of("version", "a", "owner/n", "a"), List.of()));
            assertThatThrownBy(() -> b.changeCatalog(new CatalogSwap("version", null, Map.of("version", "b", "owner/n", "b"), List.of())))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("version");
            await().atMost(Duration.ofSeconds(20)).until(() -> a.catalogEntries().containsKey("table/y"));
            assertThat(b.catalogEntries()).isEqualTo(a.catalogEntries()).containsEntry("owner/n", "a").containsEntry("version", "a");

            a.createTable("t", KV);
            await().atMost(Duration.ofSeconds(20)).until(() -> b.tables().contains("t"));
            assertThat(b.write("t", List.of(RowDiff.insert(kv(5, 5)))).block()).isPositive();
            // Shape errors are refused before anything reaches the log.
            assertThatThrownBy(() -> a.write("t", List.of(RowDiff.insert(Row.of(1L)))).block())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("columns");
            assertThatThrownBy(() -> a.write("nope", List.of(RowDiff.insert(kv(1, 1)))).block())
                    .isInstanceOf(IllegalArgumentException.class);
            // A delete of a row nobody inserted is rejected when applied, alike on every replica.
            assertThatThrownBy(() -> a.write("t", List.of(RowDiff.delete(kv(1, 1)))).block())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds 0");
            long t = a.write("t", List.of(RowDiff.insert(kv(2, 2)))).block();
            await().atMost(Duration.ofSeconds(20)).until(() -> b.upper("t").isPast(t));
            assertThat(history(b, "t", t)).isEqualTo(history(a, "t", t)).hasSize(2);
            // A replica started after those definitions knows them, and may make new ones.
            try (TableStorage c = replica(topic)) {
                c.putCatalogEntry("table/z", "{}");
                assertThat(c.catalogEntries()).containsKey("table/z");
            }
        }
    }
}
