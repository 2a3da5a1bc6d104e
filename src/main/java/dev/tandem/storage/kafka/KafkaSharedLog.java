package dev.tandem.storage.kafka;

import dev.tandem.storage.SharedLog;
import dev.tandem.storage.StorageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Tandem's shared log on a Kafka topic with one partition (one partition is what gives every replica
 * the same total order): an idempotent producer with {@code acks=all} appends, and a consumer outside
 * any group reads the partition from its first offset. A position is a Kafka offset; an entry's
 * timestamp is the broker's append time when the topic is created here ({@code LogAppendTime}).
 */
public final class KafkaSharedLog implements SharedLog {

    /** The largest entry (one write) the topic takes when created here; a 16 MB request body fits. */
    static final int MAX_ENTRY_BYTES = 32 << 20;

    private final TopicPartition partition;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Duration timeout;

    private KafkaSharedLog(TopicPartition partition, KafkaProducer<byte[], byte[]> producer,
                           KafkaConsumer<byte[], byte[]> consumer, Duration timeout) {
        this.partition = partition;
        this.producer = producer;
        this.consumer = consumer;
        this.timeout = timeout;
    }

    /**
     * Opens the log topic on {@code bootstrapServers}, creating it (one partition, kept forever,
     * broker-assigned timestamps) if it does not exist; refuses a topic with more than one partition.
     *
     * @param replicationFactor the topic's replication factor when it is created here
     * @param timeout how long a produce, or a metadata call, may take before it fails
     */
    public static KafkaSharedLog open(String bootstrapServers, String topic, short replicationFactor, Duration timeout) {
        ensureTopic(bootstrapServers, topic, replicationFactor, timeout);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis() / 2, 30_000));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis());
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, MAX_ENTRY_BYTES);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "tandem-log-producer");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "tandem-log-consumer");
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        TopicPartition tp = new TopicPartition(topic, 0);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        return new KafkaSharedLog(tp, producer, consumer, timeout);
    }

    private static void ensureTopic(String bootstrapServers, String topic, short replicationFactor, Duration timeout) {
        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        a.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        a.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        try (Admin admin = Admin.create(a)) {
            NewTopic create = new NewTopic(topic, 1, replicationFactor).configs(Map.of(
                    "retention.ms", "-1", "retention.bytes", "-1", "cleanup.policy", "delete",
                    "message.timestamp.type", "LogAppendTime", "max.message.bytes", Integer.toString(MAX_ENTRY_BYTES)));
            try {
                admin.createTopics(List.of(create)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            TopicDescription d = untilVisible(() -> admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(remainingMillis(deadline), TimeUnit.MILLISECONDS).get(topic), deadline);
            if (d.partitions().size() != 1) {
                throw new StorageException("the log topic '" + topic + "' has " + d.partitions().size()
                        + " partitions; a shared log needs exactly one (one total order)", null);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new StorageException("cannot open the log topic '" + topic + "' on " + bootstrapServers + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException("interrupted while opening the log topic '" + topic + "'", e);
        }
    }

    /** What {@link #untilVisible} calls. */
    @FunctionalInterface
    interface Describe<T> {
        T call() throws ExecutionException, TimeoutException, InterruptedException;
    }

    /**
     * Calls {@code describe} until it stops failing with {@link UnknownTopicOrPartitionException}, backing
     * off from 50 ms to 1 s, and at the deadline lets the last failure through. A topic that the
     * controller has just created (by this process, or by another replica: {@link TopicExistsException})
     * reaches the brokers' metadata caches a moment later, and the broker that answers a describe may not
     * know it yet.
     */
    static <T> T untilVisible(Describe<T> describe, long deadlineNanos) throws ExecutionException, TimeoutException, InterruptedException {
        long backoff = 50;
        while (true) {
            try {
                return describe.call();
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || remainingMillis(deadlineNanos) <= backoff) {
                    throw e;
                }
            }
            Thread.sleep(backoff);
            backoff = Math.min(1000, backoff * 2);
        }
    }

    private static long remainingMillis(long deadlineNanos) {
        return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }

    @Override
    public CompletableFuture<Long> append(String origin, byte[] payload) {
        CompletableFuture<Long> done = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(partition.topic(), partition.partition(), origin.getBytes(StandardCharsets.UTF_8), payload),
                    (metadata, error) -> {
                        if (error != null) {
                            done.completeExceptionally(error);
                        } else {
                            done.complete(metadata.offset());
                        }
                    });
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    @Override
    public long endPosition() {
        Long end = consumer.endOffsets(List.of(partition), timeout).get(partition);
        return end == null ? 0 : end;
    }

    @Override
    public List<Entry> poll(Duration wait) {
        try {
            List<Entry> out = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(wait)) {
                String origin = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
                out.add(new Entry(r.offset(), r.timestamp(), origin, r.value()));
            }
            return out;
        } catch (WakeupException e) {
            return List.of();
        }
    }

    @Override
    public void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        consumer.close(Duration.ofSeconds(5));
    }
}
