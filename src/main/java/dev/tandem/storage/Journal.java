package dev.tandem.storage;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

/** Where the storage appends framed log records: a file, or nowhere for the in-memory storage. */
interface Journal extends AutoCloseable {

    /** Feeds every intact record, in order, to {@code replay}, and cuts whatever follows the last one. */
    void recover(Consumer<LogRecord> replay);

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
