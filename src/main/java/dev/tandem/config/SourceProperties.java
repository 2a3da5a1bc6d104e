package dev.tandem.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of Kafka sources ({@code tandem.sources.*}), start-up only.
 *
 * @param bootstrapServers the Kafka cluster of a source whose definition names none
 */
@ConfigurationProperties("tandem.sources")
public record SourceProperties(@DefaultValue("localhost:9092") String bootstrapServers) {
}
