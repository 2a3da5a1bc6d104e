package dev.tandem.source;

import java.time.Duration;
import java.util.Objects;

/**
 * How replicas over one shared log agree on which of them ingests each source: through Kafka's own group
 * membership on the log's cluster (see {@link SourceLease}). Absent (a single process on the local log),
 * every source is ingested by the one process there is.
 *
 * @param bootstrapServers the cluster of the shared log
 * @param logTopic the shared log's topic: it names the groups (one per source) and is what they subscribe to
 * @param failoverTimeout how long a replica that stops heartbeating (killed, cut off) keeps a source
 *        before another one takes over: the group's session timeout, within the broker's
 *        {@code group.min.session.timeout.ms} (6 s by default) and {@code group.max.session.timeout.ms}
 */
public record SourceCoordination(String bootstrapServers, String logTopic, Duration failoverTimeout) {

    public SourceCoordination {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(logTopic, "logTopic");
        Objects.requireNonNull(failoverTimeout, "failoverTimeout");
    }

    /** The consumer group whose single assigned partition makes its holder the ingester of {@code source}. */
    String groupId(String source) {
        return logTopic + ".source." + source;
    }
}
