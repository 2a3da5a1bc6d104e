package dev.tandem.storage;

import java.nio.file.Path;

/** Opens {@link TableStorage}s: durable in a data directory, or in memory for tests. */
public final class TableStorages {

    private TableStorages() {
    }

    /**
     * Opens (creating if needed) the durable storage in {@code directory}, recovering the catalog and
     * every acknowledged write from its log and cutting a torn tail; a log damaged in the middle (intact
     * records after the damage) is refused. The directory is locked against a
     * second opener. Throws {@link StorageException} if it cannot be opened.
     */
    public static TableStorage durable(Path directory, StorageOptions options) {
        return new LogTableStorage(FileJournal.open(directory, options.fsync()), options);
    }

    /**
     * Like {@link #durable(Path, StorageOptions)}; with {@code repairTruncate}, a log damaged in the
     * middle is cut at the damage (after its original is copied to a backup beside it) instead of being
     * refused.
     */
    public static TableStorage durable(Path directory, StorageOptions options, boolean repairTruncate) {
        return new LogTableStorage(FileJournal.open(directory, options.fsync(), repairTruncate), options);
    }

    /**
     * A replica's storage over a shared, ordered log that other replicas append to as well: it applies
     * the whole log before returning, then follows it; changes are acknowledged once applied here, with
     * timestamps derived from the log so that every replica agrees on them.
     */
    public static TableStorage replicated(SharedLog log, StorageOptions options) {
        return new ReplicatedTableStorage(log, options);
    }

    /** A storage that keeps everything in memory and forgets it on close. */
    public static TableStorage inMemory(StorageOptions options) {
        return new LogTableStorage(new MemoryJournal(), options);
    }
}
