package dev.tandem.source;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The right to ingest one source, held by at most one replica at a time: a member of the Kafka consumer
 * group {@link SourceCoordination#groupId} subscribed to the shared log's topic. That topic has exactly one
 * partition, so the group's coordinator gives it to exactly one live member, and that member ingests. No
 * record is read through this consumer (its partition is paused); it exists for its membership. A member
 * that stops heartbeating (SIGKILL, a network cut) is dropped after the session timeout and the partition
 * moves to another member. Which member gets it, on every change of membership, is decided by
 * {@link SourceRankAssignor}, which spreads the sources evenly over the replicas.
 *
 * <p>Membership can lapse before its holder notices (a long pause): the holder's next write then races
 * the new holder's, and the write's guard on the recorded offsets ({@code storage.CatalogSwap}) refuses
 * the stale one, after which the holder polls here, learns it lost the partition, and stands by.
 *
 * <p>Used by the ingester's thread only, except {@link #wakeup()}.
 */
interface SourceLease extends AutoCloseable {

    /** For a single process: it always holds the lease. */
    SourceLease ALWAYS = new SourceLease() {
        @Override
        public boolean holds(Duration wait) {
            return true;
        }

        @Override
        public String describe() {
            return "the only process";
        }

        @Override
        public void wakeup() {
        }

        @Override
        public void close() {
        }
    };

    /**
     * Takes part in the group for up to {@code wait} (not waiting while it holds the lease) and answers
     * whether this replica holds it now. May throw {@link org.apache.kafka.common.errors.WakeupException}.
     */
    boolean holds(Duration wait);

    /** Where the lease is decided, for status details. */
    String describe();

    /** Ends a {@link #holds} in progress (from another thread). */
    void wakeup();

    @Override
    void close();

    /**
     * A lease decided by the group membership of {@code coordination} for {@code source}, spread by
     * {@link SourceRankAssignor} over the replicas by {@code replica} (this replica's id, the same in every
     * group) and {@code sources} (the names of the sources this replica knows, in creation order).
     */
    static SourceLease kafka(SourceCoordination coordination, String source, String replica, Supplier<List<String>> sources) {
        return new KafkaLease(coordination, source, replica, sources);
    }

    /** See {@link SourceLease}. */
    final class KafkaLease implements SourceLease {

        private final KafkaConsumer<byte[], byte[]> consumer;
        private final String group;

        KafkaLease(SourceCoordination coordination, String source, String replica, Supplier<List<String>> sources) {
            this.group = coordination.groupId(source);
            long session = coordination.failoverTimeout().toMillis();
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, coordination.bootstrapServers());
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
            p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, SourceRankAssignor.class.getName());
            p.put(SourceRankAssignor.REPLICA, replica);
            p.put(SourceRankAssignor.SOURCE, source);
            p.put(SourceRankAssignor.SOURCES, sources);
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) session);
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) Math.max(100, session / 5));
            // A step of the ingester (one guarded write, or a resync) takes at most a few minutes; past
            // that the member leaves the group and the lease moves, which the guard makes safe.
            p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000);
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
            p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, "tandem-source-lease-" + source);
            consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            consumer.subscribe(List.of(coordination.logTopic()), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    consumer.pause(partitions);
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                }
            });
        }

        @Override
        public boolean holds(Duration wait) {
            boolean held = !consumer.assignment().isEmpty();
            consumer.poll(held ? Duration.ZERO : wait);
            return !consumer.assignment().isEmpty();
        }

        @Override
        public String describe() {
            return "the Kafka consumer group '" + group + "'";
        }

        @Override
        public void wakeup() {
            consumer.wakeup();
        }

        @Override
        public void close() {
            consumer.close(Duration.ofSeconds(5));
        }
    }
}
