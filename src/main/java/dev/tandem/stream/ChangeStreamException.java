package dev.tandem.stream;

/**
 * Why a change stream ended or was refused. {@code lastTimestamp} is the last timestamp the subscriber
 * saw completely (resume with {@code as_of} = it and no snapshot), or null when it saw nothing.
 */
public final class ChangeStreamException extends RuntimeException {

    /** The reasons, each with the stable code clients see. */
    public enum Kind {
        /** The subscriber fell further behind than its buffer allows. */
        LAGGED("subscription_lagged"),
        /** The index was dropped. */
        DROPPED("index_dropped"),
        /** Too many subscriptions on the connection or in the server. */
        LIMIT("too_many_subscriptions"),
        /** The start time is before the index's compaction frontier. */
        BEFORE_SINCE("before_since"),
        /** The collection holds an error, or a row failed to evaluate, or upsert found several rows for one key. */
        FAILED("subscription_failed"),
        /** The server is shutting down. */
        CLOSED("server_closing"),
        /** The request cannot be served as asked (an upsert envelope without a key). */
        INVALID("invalid_subscription");

        private final String code;

        Kind(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    private final Kind kind;
    private final Long lastTimestamp;

    public ChangeStreamException(Kind kind, String message, Long lastTimestamp) {
        super(message, null, false, false);
        this.kind = kind;
        this.lastTimestamp = lastTimestamp;
    }

    public Kind kind() {
        return kind;
    }

    public Long lastTimestamp() {
        return lastTimestamp;
    }
}
