package dev.tandem.config;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of Kafka sources ({@code tandem.sources.*}), start-up only.
 *
 * @param bootstrapServers the Kafka cluster of a source whose definition names none
 * @param failoverTimeout with {@code tandem.storage.backend=kafka}: how long a replica that stops
 *        heartbeating keeps ingesting its sources before another replica takes over (the session timeout
 *        of each source's consumer group on the log's cluster)
 */
@ConfigurationProperties("tandem.sources")
public record SourceProperties(@DefaultValue("localhost:9092") String bootstrapServers, @DefaultValue("10s") Duration failoverTimeout) {
}
