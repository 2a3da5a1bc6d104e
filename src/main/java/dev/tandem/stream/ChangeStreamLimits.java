package dev.tandem.stream;

/**
 * Bounds on change streams: subscriptions in the whole server and on one connection; the updates and the
 * bytes one subscription may have waiting for its consumer, and the bytes all of them may have waiting
 * together, before a subscription is ended as lagged; and the least time between two progress messages
 * (an update message needs none: it carries every change at its timestamp).
 */
public record ChangeStreamLimits(int maxSubscriptions, int maxPerConnection, long bufferUpdates, long bufferBytes, long totalBufferBytes,
        long progressIntervalMillis) {

    /** The bytes one subscription may have waiting by default: 16 MiB. */
    public static final long BUFFER_BYTES = 16L << 20;
    /** The bytes all subscriptions may have waiting together by default: 256 MiB. */
    public static final long TOTAL_BUFFER_BYTES = 256L << 20;

    public static final ChangeStreamLimits DEFAULTS = new ChangeStreamLimits(10_000, 256, 10_000, 1_000);

    /** Limits with the default byte bounds. */
    public ChangeStreamLimits(int maxSubscriptions, int maxPerConnection, long bufferUpdates, long progressIntervalMillis) {
        this(maxSubscriptions, maxPerConnection, bufferUpdates, BUFFER_BYTES, TOTAL_BUFFER_BYTES, progressIntervalMillis);
    }

    public ChangeStreamLimits {
        if (bufferBytes <= 0 || totalBufferBytes < bufferBytes) {
            throw new IllegalArgumentException("change stream byte bounds must be positive, the total at least one subscription's: buffer "
                    + bufferBytes + ", total " + totalBufferBytes);
        }
        if (maxSubscriptions <= 0 || maxPerConnection <= 0 || bufferUpdates <= 0 || progressIntervalMillis < 0) {
            throw new IllegalArgumentException("change stream limits must be positive (the progress interval non-negative): max "
                    + maxSubscriptions + ", per connection " + maxPerConnection + ", buffer " + bufferUpdates + ", progress interval "
                    + progressIntervalMillis);
        }
    }
}
