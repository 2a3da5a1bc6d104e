package dev.tandem.config;

import dev.tandem.stream.ChangeStreamLimits;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of change streams ({@code tandem.subscribe.*}), start-up only.
 *
 * @param maxSubscriptions subscriptions open in the whole server; more are refused (429)
 * @param maxPerConnection subscriptions one WebSocket connection may hold; more are refused (429)
 * @param bufferUpdates updates one subscription may have waiting for its client; a subscription that
 *     produces more while that many wait is ended with {@code subscription_lagged}
 * @param bufferBytes the bytes (of rows) one subscription may have waiting for its client, likewise
 * @param totalBufferBytes the bytes all subscriptions may have waiting together; the one that would go
 *     past it is ended the same way
 * @param progressInterval the least time between two progress messages (the first follows the snapshot
 *     at once; an update message needs none, as it carries every change at its timestamp)
 */
@ConfigurationProperties("tandem.subscribe")
public record SubscribeProperties(@DefaultValue("10000") int maxSubscriptions, @DefaultValue("256") int maxPerConnection,
        @DefaultValue("10000") long bufferUpdates, @DefaultValue("16MB") org.springframework.util.unit.DataSize bufferBytes,
        @DefaultValue("256MB") org.springframework.util.unit.DataSize totalBufferBytes, @DefaultValue("1s") Duration progressInterval) {

    public ChangeStreamLimits limits() {
        return new ChangeStreamLimits(maxSubscriptions, maxPerConnection, bufferUpdates, bufferBytes.toBytes(), totalBufferBytes.toBytes(),
                progressInterval.toMillis());
    }
}
