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
import java.util.function.ObjLongConsumer;

/**
 * The storage log in a data directory: {@code tandem.log} holds a magic header and then framed
 * records (see {@link LogCodec}); {@code LOCK} keeps a second process out. Recovery reads frames until
 * the first one that is incomplete, longer than the file, or fails its checksum. If no intact frame
 * follows anywhere after it, that is a torn tail and the file is truncated exactly there; if one does,
 * the log is damaged in the middle and recovery refuses (acknowledged records would be lost) unless it
 * was opened with {@code repairTruncate}, which first copies the original file to a backup beside it
 * and then truncates. A rewrite goes to {@code tandem.log.tmp}, is forced, renamed over the log and the
 * directory is forced, so a crash leaves either the old log or the new one. A probe for free space
 * writes a scratch file beside the log, never the log itself, so nobody reading the log (recovery after
 * a crash, a backup tool) ever sees a probe's bytes in it.
 */
final class FileJournal implements Journal {

    static final String LOG_FILE = "tandem.log";
    static final String TMP_FILE = "tandem.log.tmp";
    static final String PROBE_FILE = "tandem.log.probe";
    static final String LOCK_FILE = "LOCK";
    static final byte[] MAGIC = "TNDMLOG1".getBytes(StandardCharsets.US_ASCII);

    private static final System.Logger LOG = System.getLogger(FileJournal.class.getName());
    private static final int REWRITE_CHUNK = 1 << 20;
    /** Scratch space a probe writes (and removes) to find out whether the log can take writes again. */
    private static final int PROBE_BYTES = 64 << 10;

    private final Path directory;
    private final boolean fsync;
    private final boolean repairTruncate;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private FileChannel channel;
    private volatile long size;

    private FileJournal(Path directory, boolean fsync, boolean repairTruncate, FileChannel lockChannel, FileLock lock,
            FileChannel channel) {
        this.directory = directory;
        this.fsync = fsync;
        this.repairTruncate = repairTruncate;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.channel = channel;
    }

    static FileJournal open(Path directory, boolean fsync) {
        return open(directory, fsync, false);
    }

    /**
     * Opens the log in {@code directory}; {@code repairTruncate} accepts cutting a log damaged in the
     * middle at the damage (after keeping a backup of the original file) instead of refusing to start.
     */
    static FileJournal open(Path directory, boolean fsync, boolean repairTruncate) {
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
            Files.deleteIfExists(directory.resolve(PROBE_FILE));
            Path log = directory.resolve(LOG_FILE);
            FileChannel channel = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            if (channel.size() < MAGIC.length) {
                channel.truncate(0);
                writeFully(channel, ByteBuffer.wrap(MAGIC), 0);
                channel.force(true);
                forceDirectory(directory);
            }
            return new FileJournal(directory, fsync, repairTruncate, lockChannel, lock, channel);
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
        recover((record, offset) -> replay.accept(record));
    }

    @Override
    public void recover(ObjLongConsumer<LogRecord> replay) {
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
                replay.accept(LogCodec.decode(payload), pos);
                records++;
                pos += LogCodec.FRAME_HEADER + length;
            }
            if (cut != null) {
                Path file = directory.resolve(LOG_FILE).toAbsolutePath();
                long next = nextIntactFrame(pos + 1, fileSize);
                if (next >= 0) {
                    long after = intactFramesFrom(next, fileSize);
                    if (!repairTruncate) {
                        throw new StorageException("the log " + file + " is damaged at offset " + pos + " (" + cut + ") after "
                                + records + " intact records, and " + after + " intact records follow from offset " + next
                                + "; refusing to start, since cutting there would lose them. To accept that loss, start once with"
                                + " --tandem.storage.repair=truncate: the original file is first copied to a backup beside it,"
                                + " then the log is cut at offset " + pos + ".", null);
                    }
                    Path backup = directory.resolve(LOG_FILE + ".damaged-" + System.currentTimeMillis());
                    Files.copy(file, backup, StandardCopyOption.COPY_ATTRIBUTES);
                    try (FileChannel b = FileChannel.open(backup, StandardOpenOption.WRITE)) {
                        b.force(true);
                    }
                    forceDirectory(directory);
                    LOG.log(Level.WARNING, "log {0}: damaged at offset {1} ({2}); repair=truncate: kept the original as {3}, cutting {4}"
                            + " bytes including {5} intact records after the damage", file, pos, cut, backup, fileSize - pos, after);
                } else {
                    LOG.log(Level.WARNING, "log {0}: {1} at offset {2}; cutting the torn tail of {3} bytes after {4} intact records",
                            file, cut, pos, fileSize - pos, records);
                }
                channel.truncate(pos);
                channel.force(true);
            }
            size = pos;
        } catch (IOException e) {
            throw new StorageException("cannot recover the log in " + directory.toAbsolutePath() + ": " + e.getMessage(), e);
        }
    }

    /** The offset of the first intact frame (valid length, checksum and payload) at or after {@code from}; -1 if none. */
    private long nextIntactFrame(long from, long fileSize) throws IOException {
        long end = fileSize - LogCodec.FRAME_HEADER;
        if (from > end) {
            return -1;
        }
        long span = Math.min(fileSize - from, Integer.MAX_VALUE - 8);
        ByteBuffer tail = channel.map(FileChannel.MapMode.READ_ONLY, from, span);
        for (int at = 0; at + LogCodec.FRAME_HEADER <= span; at++) {
            int length = tail.getInt(at);
            if (length <= 0 || length > span - at - LogCodec.FRAME_HEADER) {
                continue;
            }
            byte[] payload = new byte[length];
            tail.get(at + LogCodec.FRAME_HEADER, payload);
            if (LogCodec.checksum(payload) == tail.getInt(at + 4) && decodes(payload)) {
                return from + at;
            }
        }
        return -1;
    }

    /** How many intact frames follow one another from {@code from}. */
    private long intactFramesFrom(long from, long fileSize) throws IOException {
        long count = 0;
        long pos = from;
        ByteBuffer header = ByteBuffer.allocate(LogCodec.FRAME_HEADER);
        while (fileSize - pos >= LogCodec.FRAME_HEADER) {
            header.clear();
            readFully(channel, header, pos);
            int length = header.getInt(0);
            if (length <= 0 || length > fileSize - pos - LogCodec.FRAME_HEADER) {
                break;
            }
            byte[] payload = new byte[length];
            readFully(channel, ByteBuffer.wrap(payload), pos + LogCodec.FRAME_HEADER);
            if (LogCodec.checksum(payload) != header.getInt(4) || !decodes(payload)) {
                break;
            }
            count++;
            pos += LogCodec.FRAME_HEADER + length;
        }
        return count;
    }

    private static boolean decodes(byte[] payload) {
        try {
            LogCodec.decode(payload);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public boolean appendAndSync(byte[] frames, int length) throws IOException {
        try {
            writeFully(channel, ByteBuffer.wrap(frames, 0, length), size);
            if (fsync) {
                channel.force(false);
            }
        } catch (IOException e) {
            cutBack(e);
            throw e;
        }
        size += length;
        return fsync;
    }

    /** Removes whatever a failed write left after the last intact record; if even that fails, the log is unusable. */
    private void cutBack(IOException cause) {
        try {
            channel.truncate(size);
            channel.force(false);
        } catch (IOException e) {
            cause.addSuppressed(e);
            throw new StorageException("a failed write to the log could not be undone (" + e.getMessage()
                    + "); the storage accepts no more changes", cause);
        }
    }

    @Override
    public void probe() throws IOException {
        Path scratch = directory.resolve(PROBE_FILE);
        try (FileChannel out = FileChannel.open(scratch, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            writeFully(out, ByteBuffer.allocate(PROBE_BYTES), 0);
            out.force(false);
        } finally {
            Files.deleteIfExists(scratch);
        }
    }

    @Override
    public void rewrite(List<LogRecord> image) throws IOException {
        Path tmp = directory.resolve(TMP_FILE);
        try {
            rewriteInto(tmp, image);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private void rewriteInto(Path tmp, List<LogRecord> image) throws IOException {
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
        FileChannel old = channel;
        try {
            channel = FileChannel.open(directory.resolve(LOG_FILE), StandardOpenOption.READ, StandardOpenOption.WRITE);
            forceDirectory(directory);
        } catch (IOException e) {
            throw new StorageException("the log was replaced but could not be reopened: " + e.getMessage(), e);
        }
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
