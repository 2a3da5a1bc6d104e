package dev.tandem.storage;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * The storage log in a data directory: {@code tandem.log} holds a magic header and then framed
 * records (see {@link LogCodec}); {@code LOCK} keeps a second process out. Recovery reads frames until
 * the first one that is incomplete, longer than the file, or fails its checksum, and truncates the file
 * exactly there. A rewrite goes to {@code tandem.log.tmp}, is forced, renamed over the log and the
 * directory is forced, so a crash leaves either the old log or the new one.
 */
final class FileJournal implements Journal {

    static final String LOG_FILE = "tandem.log";
    static final String TMP_FILE = "tandem.log.tmp";
    static final String LOCK_FILE = "LOCK";
    static final byte[] MAGIC = "TNDMLOG1".getBytes(StandardCharsets.US_ASCII);

    private static final System.Logger LOG = System.getLogger(FileJournal.class.getName());
    private static final int REWRITE_CHUNK = 1 << 20;

    private final Path directory;
    private final boolean fsync;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private FileChannel channel;
    private volatile long size;

    private FileJournal(Path directory, boolean fsync, FileChannel lockChannel, FileLock lock, FileChannel channel) {
        this.directory = directory;
        this.fsync = fsync;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.channel = channel;
    }

    static FileJournal open(Path directory, boolean fsync) {
        FileChannel lockChannel = null;
        try {
            Files.createDirectories(directory);
            lockChannel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new StorageException("data directory " + directory.toAbsolutePath() + " is in use by another process", null);
            }
            Files.deleteIfExists(directory.resolve(TMP_FILE));
            Path log = directory.resolve(LOG_FILE);
            FileChannel channel = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            if (channel.size() < MAGIC.length) {
                channel.truncate(0);
                writeFully(channel, ByteBuffer.wrap(MAGIC), 0);
                channel.force(true);
                forceDirectory(directory);
            }
            return new FileJournal(directory, fsync, lockChannel, lock, channel);
        } catch (IOException e) {
            closeQuietly(lockChannel);
            throw new StorageException("cannot open the log in " + directory.toAbsolutePath() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(lockChannel);
            throw e;
        }
    }

    @Override
    public void recover(Consumer<LogRecord> replay) {
        try {
            long fileSize = channel.size();
            ByteBuffer magic = ByteBuffer.allocate(MAGIC.length);
            readFully(channel, magic, 0);
            if (!Arrays.equals(magic.array(), MAGIC)) {
                throw new StorageException(directory.resolve(LOG_FILE).toAbsolutePath() + " is not a Tandem log (bad magic)", null);
            }
            long pos = MAGIC.length;
            ByteBuffer header = ByteBuffer.allocate(LogCodec.FRAME_HEADER);
            String cut = null;
            long records = 0;
            while (pos < fileSize) {
                if (fileSize - pos < LogCodec.FRAME_HEADER) {
                    cut = "torn frame header";
                    break;
                }
                header.clear();
                readFully(channel, header, pos);
                int length = header.getInt(0);
                int crc = header.getInt(4);
                if (length <= 0 || length > LogCodec.MAX_PAYLOAD || length > fileSize - pos - LogCodec.FRAME_HEADER) {
                    cut = "torn or corrupt frame (length " + length + ")";
                    break;
                }
                byte[] payload = new byte[length];
                readFully(channel, ByteBuffer.wrap(payload), pos + LogCodec.FRAME_HEADER);
                if (LogCodec.checksum(payload) != crc) {
                    cut = "checksum mismatch";
                    break;
                }
                replay.accept(LogCodec.decode(payload));
                records++;
                pos += LogCodec.FRAME_HEADER + length;
            }
            if (cut != null) {
                LOG.log(Level.WARNING, "log {0}: {1} at offset {2}; cutting {3} bytes after {4} intact records",
                        directory.resolve(LOG_FILE), cut, pos, fileSize - pos, records);
                channel.truncate(pos);
                channel.force(true);
            }
            size = pos;
        } catch (IOException e) {
            throw new StorageException("cannot recover the log in " + directory.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void append(byte[] frames, int length) throws IOException {
        writeFully(channel, ByteBuffer.wrap(frames, 0, length), size);
        size += length;
    }

    @Override
    public boolean sync() throws IOException {
        if (!fsync) {
            return false;
        }
        channel.force(false);
        return true;
    }

    @Override
    public void rewrite(List<LogRecord> image) throws IOException {
        Path tmp = directory.resolve(TMP_FILE);
        long written;
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            LogCodec.FrameBuffer buffer = new LogCodec.FrameBuffer();
            writeFully(out, ByteBuffer.wrap(MAGIC), 0);
            written = MAGIC.length;
            for (LogRecord record : image) {
                buffer.frame(record);
                if (buffer.length() >= REWRITE_CHUNK) {
                    writeFully(out, ByteBuffer.wrap(buffer.array(), 0, buffer.length()), written);
                    written += buffer.length();
                    buffer.reset();
                }
            }
            writeFully(out, ByteBuffer.wrap(buffer.array(), 0, buffer.length()), written);
            written += buffer.length();
            out.force(true);
        }
        Files.move(tmp, directory.resolve(LOG_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(directory);
        FileChannel old = channel;
        channel = FileChannel.open(directory.resolve(LOG_FILE), StandardOpenOption.READ, StandardOpenOption.WRITE);
        size = written;
        closeQuietly(old);
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public void close() {
        closeQuietly(channel);
        try {
            lock.release();
        } catch (IOException ignored) {
            // the lock goes with the channel below
        }
        closeQuietly(lockChannel);
    }

    private static void forceDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    private static void writeFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            at += channel.write(buffer, at);
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
                throw new IOException("unexpected end of file at " + at);
            }
            at += n;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // nothing useful to do on close
        }
    }
}
