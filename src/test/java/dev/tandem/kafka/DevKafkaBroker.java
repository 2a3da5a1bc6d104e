package dev.tandem.kafka;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A single-node Kafka broker in KRaft mode on loopback, for trying the Kafka backend and running
 * {@code bench replicas} on a machine without Kafka: {@code bin/dev kafka [PORT]} (9092 by default) runs it
 * from the test class path's Kafka jars until Ctrl-C. Its data is in a temporary directory, deleted when it
 * stops: every start is an empty cluster. Topics are created on first use, with one partition (the shared
 * log topic must have one; Tandem creates it so if absent).
 */
public final class DevKafkaBroker {

    private DevKafkaBroker() {
    }

    public static void main(String[] args) throws InterruptedException {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 9092;
        KafkaTesting.quietLogs();
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1).kafkaPorts(port);
        // A replica that joins a source's group should not wait for others that might come.
        broker.brokerProperties(Map.of("group.initial.rebalance.delay.ms", "0"));
        broker.afterPropertiesSet();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            broker.destroy();
            stopped.countDown();
        }, "kafka-stop"));
        System.out.println("Kafka (KRaft, one node) on " + broker.getBrokersAsString() + "; Ctrl-C stops it and deletes its data");
        stopped.await();
    }
}
