package dev.tandem.storage;

/** The storage could not make a change durable (an I/O failure); it accepts no further changes. */
public final class StorageException extends RuntimeException {
    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
