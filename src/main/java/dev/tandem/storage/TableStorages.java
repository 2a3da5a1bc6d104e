package dev.tandem.storage;

import java.nio.file.Path;

/** Opens {@link TableStorage}s: durable in a data directory, or in memory for tests. */
public final class TableStorages {

    private TableStorages() {
    }

    /**
     * Opens (creating if needed) the durable storage in {@code directory}, recovering the catalog and
     * every acknowledged write from its log and cutting a torn tail. The directory is locked against a
     * second opener. Throws {@link StorageException} if it cannot be opened.
     */
    public static TableStorage durable(Path directory, StorageOptions options) {
        return new LogTableStorage(FileJournal.open(directory, options.fsync()), options);
    }

    /** A storage that keeps everything in memory and forgets it on close. */
    public static TableStorage inMemory(StorageOptions options) {
        return new LogTableStorage(new MemoryJournal(), options);
    }
}
