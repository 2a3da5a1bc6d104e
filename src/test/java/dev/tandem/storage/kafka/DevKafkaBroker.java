package dev.tandem.storage.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * A single-node Kafka broker in KRaft mode on loopback, for trying the Kafka backend and running
 * {@code bench replicas} on a machine without Kafka: {@code bin/dev kafka [PORT]} runs it from the test
 * class path's Kafka jars (the same broker as Kafka's {@code kafka-storage.sh format} and
 * {@code kafka-server-start.sh}) until Ctrl-C. It listens on {@code 127.0.0.1:PORT} (9092 by default), its
 * controller on {@code PORT + 1}. Its data is in {@code target/dev-kafka}, wiped at every start: each start
 * is an empty cluster. Topics are created on first use with one partition (the shared log topic must have
 * one; Tandem creates it so if absent).
 */
public final class DevKafkaBroker {

    private DevKafkaBroker() {
    }

    public static void main(String[] args) throws IOException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 9092;
        KafkaTesting.quietLogs();
        Path dir = Path.of("target", "dev-kafka").toAbsolutePath();
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        Files.createDirectories(dir);
        Path config = dir.resolve("server.properties");
        Files.writeString(config, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.bootstrap.servers=127.0.0.1:" + (port + 1),
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + (port + 1),
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + dir.resolve("data"),
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                // A replica that joins a source's group should not wait for others that might come.
                "group.initial.rebalance.delay.ms=0",
                ""));
        int formatted = kafka.tools.StorageTool.execute(
                new String[] {"format", "--cluster-id", Uuid.randomUuid().toString(), "--config", config.toString(), "--standalone"}, System.out);
        if (formatted != 0) {
            throw new IllegalStateException("formatting " + dir + " failed (" + formatted + ")");
        }
        System.out.println("Kafka (KRaft, one node) on 127.0.0.1:" + port + ", data in " + dir + "; Ctrl-C stops it");
        kafka.Kafka.main(new String[] {config.toString()});
    }
}
