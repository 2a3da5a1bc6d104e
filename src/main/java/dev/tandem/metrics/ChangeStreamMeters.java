package dev.tandem.metrics;

import dev.tandem.stream.ChangeStreams;
import dev.tandem.stream.SubscriptionStatus;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/** Meters of change streams, computed when scraped from the server's own counters. */
public final class ChangeStreamMeters {

    /** Gauge: subscriptions open now. */
    public static final String ACTIVE = "tandem.subscriptions.active";
    /** Counter: messages handed to subscribers. */
    public static final String MESSAGES = "tandem.subscription.messages";
    /** Counter: encoded bytes sent to subscribers. */
    public static final String BYTES = "tandem.subscription.bytes";
    /** Counter: subscriptions ended because their client fell behind. */
    public static final String LAGGED = "tandem.subscriptions.lagged";
    /** Gauge: the largest lag of an open subscription behind its index's upper. */
    public static final String MAX_LAG = "tandem.subscription.lag.max";

    private ChangeStreamMeters() {
    }

    public static void bind(MeterRegistry registry, ChangeStreams streams) {
        Gauge.builder(ACTIVE, streams, ChangeStreams::activeCount).description("Change-stream subscriptions open now")
                .strongReference(true).register(registry);
        FunctionCounter.builder(MESSAGES, streams, ChangeStreams::messagesSent).description("Change-stream messages handed to subscribers")
                .register(registry);
        FunctionCounter.builder(BYTES, streams, ChangeStreams::bytesSent).description("Encoded change-stream bytes sent to subscribers")
                .baseUnit("bytes").register(registry);
        FunctionCounter.builder(LAGGED, streams, ChangeStreams::laggedTotal)
                .description("Subscriptions ended because their client fell further behind than its buffer").register(registry);
        Gauge.builder(MAX_LAG, streams, s -> s.active().stream().mapToLong(SubscriptionStatus::lagMillis).max().orElse(0) / 1000.0)
                .description("Largest lag of an open subscription behind its index's write frontier").baseUnit("seconds")
                .strongReference(true).register(registry);
    }
}
