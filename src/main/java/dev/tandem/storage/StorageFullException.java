package dev.tandem.storage;

/**
 * The storage could not make a change durable because the log's file system is out of space (or
 * another I/O error that may pass); nothing of the change was kept. The storage retries by itself and
 * accepts changes again once it can write.
 */
public final class StorageFullException extends RuntimeException {
    public StorageFullException(String message, Throwable cause) {
        super(message, cause);
    }
}
