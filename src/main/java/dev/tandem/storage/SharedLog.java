package dev.tandem.storage;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A totally ordered, replicated log that several storages append to and each replay in full (Kafka's
 * single-partition topic is one). Every reader sees the same entries in the same order with the same
 * positions and timestamps, so applying them deterministically gives every replica the same state.
 *
 * <p>{@link #append} may be called from any thread; {@link #endPosition} and {@link #poll} only from
 * one reading thread at a time.
 */
public interface SharedLog extends AutoCloseable {

    /** One entry as every reader sees it: its position, the log's timestamp (milliseconds) and its payload. */
    record Entry(long position, long timestamp, String origin, byte[] payload) {
    }

    /**
     * Appends {@code payload}, tagged with {@code origin} (a request id the appender recognises when it
     * reads the entry back), and completes with its position once the log has made it durable; fails if
     * it could not.
     */
    CompletableFuture<Long> append(String origin, byte[] payload);

    /** The position the next appended entry will have at least: every entry below it exists now. */
    long endPosition();

    /** The next entries in order after those already returned (from the log's start), waiting up to {@code timeout}. */
    List<Entry> poll(Duration timeout);

    /** Wakes a reader blocked in {@link #poll} so it can notice it is closing. */
    void wakeup();

    @Override
    void close();
}
