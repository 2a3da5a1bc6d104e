package dev.tandem.storage;

import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;

/** Where the storage appends framed log records: a file, or nowhere for the in-memory storage. */
interface Journal extends AutoCloseable {

    /** Feeds every intact record, in order, to {@code replay}, and cuts whatever follows the last one. */
    void recover(Consumer<LogRecord> replay);

    /** Appends {@code length} bytes of framed records. */
    void append(byte[] frames, int length) throws IOException;

    /** Forces appended records to disk; returns whether an fsync was performed. */
    boolean sync() throws IOException;

    /** Atomically replaces the whole log with {@code image}. */
    void rewrite(List<LogRecord> image) throws IOException;

    /** The log's size in bytes. */
    long size();

    @Override
    void close();
}
