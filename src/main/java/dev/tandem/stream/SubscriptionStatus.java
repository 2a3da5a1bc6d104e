package dev.tandem.stream;

/**
 * One active subscription as introspection shows it: the index it follows, who subscribed, the last
 * timestamp its consumer has seen completely ({@code delivered}, null before the snapshot), the
 * index's write frontier as last seen, the lag between them in milliseconds, the updates waiting in
 * its buffer, and the messages and bytes sent so far.
 */
public record SubscriptionStatus(long id, String index, String subscriber, Long delivered, Long upper, long lagMillis,
        long buffered, long messages, long bytes) {
}
