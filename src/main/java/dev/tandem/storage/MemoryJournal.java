package dev.tandem.storage;

import java.util.List;
import java.util.function.Consumer;

/** A journal that keeps nothing: the in-memory storage's state lives only in its tables. */
final class MemoryJournal implements Journal {

    @Override
    public void recover(Consumer<LogRecord> replay) {
    }

    @Override
    public boolean appendAndSync(byte[] frames, int length) {
        return false;
    }

    @Override
    public void probe() {
    }

    @Override
    public void rewrite(List<LogRecord> image) {
    }

    @Override
    public long size() {
        return 0;
    }

    @Override
    public void close() {
    }
}
