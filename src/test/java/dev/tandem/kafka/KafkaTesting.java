package dev.tandem.kafka;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/** Shared fixtures of the Kafka tests. */
final class KafkaTesting {

    private KafkaTesting() {
    }

    /** Keeps the embedded broker's and the clients' INFO chatter (configuration dumps) out of the build log. */
    static void quietLogs() {
        for (String name : new String[] {"org.apache.kafka", "kafka", "org.apache.zookeeper", "state.change.logger"}) {
            ((Logger) LoggerFactory.getLogger(name)).setLevel(Level.WARN);
        }
    }
}
