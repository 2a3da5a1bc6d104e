package dev.tandem.storage;

/**
 * A shared log (such as Kafka) did not take a change in time; the change may or may not appear in the
 * log later. The caller may retry; reads keep being served from what is applied.
 */
public final class LogUnavailableException extends RuntimeException {
    public LogUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
