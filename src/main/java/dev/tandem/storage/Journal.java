package dev.tandem.storage;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;

/** Where the storage appends framed log records: a file, or nowhere for the in-memory storage. */
interface Journal extends AutoCloseable {

    /** Feeds every intact record, in order, to {@code replay}, and cuts whatever follows the last one. */
    void recover(Consumer<LogRecord> replay);

    /**
     * Like {@link #recover(Consumer)}, with each record's offset in the log (where its frame starts),
     * or -1 from a journal that has no offsets.
     */
    default void recover(ObjLongConsumer<LogRecord> replay) {
        recover(record -> replay.accept(record, -1));
    }

    /**
     * Appends {@code length} bytes of framed records and forces them to disk when fsync is on; returns
     * whether an fsync was performed. On failure nothing of them stays in the log (it is cut back to
     * its size before), so a later append continues cleanly.
     */
    boolean appendAndSync(byte[] frames, int length) throws IOException;

    /** Whether the log can take writes again, found by writing (and removing) a little scratch space. */
    void probe() throws IOException;

    /** Atomically replaces the whole log with {@code image}; on failure the old log stays in place. */
    void rewrite(List<LogRecord> image) throws IOException;

    /** The log's size in bytes. */
    long size();

    @Override
    void close();
}
