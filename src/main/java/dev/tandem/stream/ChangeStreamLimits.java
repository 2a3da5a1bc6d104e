package dev.tandem.stream;

/**
 * Bounds on change streams: subscriptions in the whole server and on one connection; the updates one
 * subscription may have waiting for its consumer before it is ended as lagged; and the least time
 * between two progress messages (an update message needs none: it carries every change at its timestamp).
 */
public record ChangeStreamLimits(int maxSubscriptions, int maxPerConnection, long bufferUpdates, long progressIntervalMillis) {

    public static final ChangeStreamLimits DEFAULTS = new ChangeStreamLimits(10_000, 256, 10_000, 1_000);

    public ChangeStreamLimits {
        if (maxSubscriptions <= 0 || maxPerConnection <= 0 || bufferUpdates <= 0 || progressIntervalMillis < 0) {
            throw new IllegalArgumentException("change stream limits must be positive (the progress interval non-negative): max "
                    + maxSubscriptions + ", per connection " + maxPerConnection + ", buffer " + bufferUpdates + ", progress interval "
                    + progressIntervalMillis);
        }
    }
}
