package dev.tandem.storage;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the log takes writes. A log write that fails (a full disk) is cut back out of the log, so
 * nothing of it stays, and the storage is {@linkplain #unavailable() unavailable} until a write or a
 * probe succeeds. Only a failure that leaves the log in an unknown state (a failed write that cannot
 * be cut back) is {@linkplain #failure() fatal}: the storage then refuses every change for good.
 *
 * <p>Threading: the commit thread sets the state; any thread reads it (volatile fields).
 */
final class StorageHealth {

    private volatile StorageException failure;
    /** Why the last log write failed, until one succeeds; null while writes succeed. */
    private volatile StorageFullException unavailable;
    private final AtomicLong writeFailures = new AtomicLong();

    /** The failure that stopped the storage for good, or null. */
    StorageException failure() {
        return failure;
    }

    void fail(StorageException e) {
        failure = e;
    }

    /** Whether writes are failing for now (and a probe is worth making). */
    boolean isUnavailable() {
        return unavailable != null && failure == null;
    }

    /** A log write failed and was undone: writes are refused with {@code full} until one succeeds. */
    void writeFailed(StorageFullException full) {
        writeFailures.incrementAndGet();
        unavailable = full;
    }

    /** A probe failed: still unavailable. */
    void probeFailed() {
        writeFailures.incrementAndGet();
    }

    /** A log write or probe succeeded. */
    void writable() {
        unavailable = null;
    }

    /** Why the storage takes no changes now, or null if it does. */
    String unavailable() {
        StorageException f = failure;
        if (f != null) {
            return f.getMessage();
        }
        StorageFullException u = unavailable;
        return u == null ? null : u.getMessage();
    }

    /** Log writes (and probes) that failed and were undone. */
    long writeFailures() {
        return writeFailures.get();
    }
}
