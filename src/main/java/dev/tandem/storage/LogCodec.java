package dev.tandem.storage;

import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The binary form of {@link LogRecord}s. A frame is a big-endian {@code int} payload length, an
 * {@code int} CRC32C of the payload, and the payload: a type byte followed by the record's fields
 * (strings as length-prefixed UTF-8, rows as length-prefixed packed rows).
 */
final class LogCodec {

    static final int FRAME_HEADER = 8;
    /** Frames longer than this are taken for corruption. */
    static final int MAX_PAYLOAD = 1 << 30;

    private static final byte CREATE = 1;
    private static final byte DROP = 2;
    private static final byte WRITE = 3;
    private static final byte PUT = 4;
    private static final byte REMOVE = 5;
    private static final byte SINCE = 6;
    private static final byte CLOCK = 7;
    /** A write with a {@link CatalogSwap}: the write's fields, then the swap's. */
    private static final byte WRITE_SWAP = 8;
    /** A {@link CatalogSwap} alone. */
    private static final byte CATALOG_CHANGE = 9;
    /** A table with unique keys: {@link #CREATE}'s fields, then the keys (a table without keys is written as {@link #CREATE}). */
    private static final byte CREATE_KEYED = 10;
    /** Writes to several tables at one time: the time, whether a swap follows, the parts (table id and rows), then the swap. */
    private static final byte WRITE_TABLES = 11;
    /** A key added to a table: the table id, the key, whether a swap follows, then the swap. */
    private static final byte ADD_KEY = 12;
    /** A key dropped from a table: the table id, the key's name, whether a swap follows, then the swap. */
    private static final byte DROP_KEY = 13;

    private LogCodec() {
    }

    /** A growable byte buffer that frames records into itself. */
    static final class FrameBuffer {
        private byte[] buf = new byte[1 << 16];
        private int len;
        private final CRC32C crc = new CRC32C();

        byte[] array() {
            return buf;
        }

        int length() {
            return len;
        }

        void reset() {
            len = 0;
        }

        /** Appends one framed record. */
        void frame(LogRecord record) {
            int start = len;
            ensure(FRAME_HEADER);
            len += FRAME_HEADER;
            encode(record);
            int payload = len - start - FRAME_HEADER;
            crc.reset();
            crc.update(buf, start + FRAME_HEADER, payload);
            writeInt(start, payload);
            writeInt(start + 4, (int) crc.getValue());
        }

        private void encode(LogRecord record) {
            switch (record) {
                case LogRecord.CreateTable c -> {
                    putByte(c.keys().isEmpty() ? CREATE : CREATE_KEYED);
                    putString(c.id());
                    putInt(c.schema().arity());
                    for (Column col : c.schema().columns()) {
                        putString(col.name());
                        putString(col.type().jsonName());
                        putByte((byte) (col.nullable() ? 1 : 0));
                    }
                    if (!c.keys().isEmpty()) {
                        putInt(c.keys().size());
                        c.keys().forEach(this::putKey);
                    }
                }
                case LogRecord.AddKey a -> {
                    putByte(ADD_KEY);
                    putString(a.id());
                    putKey(a.key());
                    putOptionalSwap(a.swap());
                }
                case LogRecord.DropKey d -> {
                    putByte(DROP_KEY);
                    putString(d.id());
                    putString(d.name());
                    putOptionalSwap(d.swap());
                }
                case LogRecord.DropTable d -> {
                    putByte(DROP);
                    putString(d.id());
                }
                case LogRecord.Write w -> {
                    putByte(w.swap() == null ? WRITE : WRITE_SWAP);
                    putString(w.id());
                    putLong(w.time());
                    putRows(w.updates());
                    if (w.swap() != null) {
                        putSwap(w.swap());
                    }
                }
                case LogRecord.WriteTables w -> {
                    putByte(WRITE_TABLES);
                    putLong(w.time());
                    putByte((byte) (w.swap() == null ? 0 : 1));
                    putInt(w.parts().size());
                    for (LogRecord.Write part : w.parts()) {
                        putString(part.id());
                        putRows(part.updates());
                    }
                    if (w.swap() != null) {
                        putSwap(w.swap());
                    }
                }
                case LogRecord.CatalogPut p -> {
                    putByte(PUT);
                    putString(p.key());
                    putString(p.json());
                }
                case LogRecord.CatalogRemove r -> {
                    putByte(REMOVE);
                    putString(r.key());
                }
                case LogRecord.CatalogChange c -> {
                    putByte(CATALOG_CHANGE);
                    putSwap(c.swap());
                }
                case LogRecord.Since s -> {
                    putByte(SINCE);
                    putString(s.id());
                    putLong(s.since());
                }
                case LogRecord.Clock c -> {
                    putByte(CLOCK);
                    putLong(c.lastTime());
                }
            }
        }

        private void putRows(List<RowDiff> updates) {
            putInt(updates.size());
            for (RowDiff u : updates) {
                Row row = u.row();
                putInt(row.byteSize());
                ensure(row.byteSize());
                row.copyTo(buf, len);
                len += row.byteSize();
                putLong(u.diff());
            }
        }

        private void putKey(UniqueKey k) {
            putString(k.name());
            putByte((byte) (k.primary() ? 1 : 0));
            putInt(k.columns().size());
            for (int col : k.columns()) {
                putInt(col);
            }
        }

        private void putOptionalSwap(CatalogSwap swap) {
            putByte((byte) (swap == null ? 0 : 1));
            if (swap != null) {
                putSwap(swap);
            }
        }

        private void putSwap(CatalogSwap swap) {
            putString(swap.guardKey());
            putByte((byte) (swap.guardValue() == null ? 0 : 1));
            if (swap.guardValue() != null) {
                putString(swap.guardValue());
            }
            putInt(swap.puts().size());
            for (var e : new TreeMap<>(swap.puts()).entrySet()) {
                putString(e.getKey());
                putString(e.getValue());
            }
            putInt(swap.removes().size());
            for (String key : swap.removes()) {
                putString(key);
            }
        }

        private void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        private void putByte(byte b) {
            ensure(1);
            buf[len++] = b;
        }

        private void putInt(int v) {
            ensure(4);
            writeInt(len, v);
            len += 4;
        }

        private void writeInt(int at, int v) {
            buf[at] = (byte) (v >>> 24);
            buf[at + 1] = (byte) (v >>> 16);
            buf[at + 2] = (byte) (v >>> 8);
            buf[at + 3] = (byte) v;
        }

        private void putLong(long v) {
            ensure(8);
            for (int shift = 56; shift >= 0; shift -= 8) {
                buf[len++] = (byte) (v >>> shift);
            }
        }

        private void putString(String s) {
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            putInt(utf8.length);
            ensure(utf8.length);
            System.arraycopy(utf8, 0, buf, len, utf8.length);
            len += utf8.length;
        }
    }

    /** The CRC32C of {@code payload}, as stored in a frame header. */
    static int checksum(byte[] payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload);
        return (int) crc.getValue();
    }

    /**
     * Decodes a payload whose checksum matched. Rows are views into {@code payload}, which must not
     * change afterwards. Throws {@link IllegalStateException} if the payload is malformed.
     */
    static LogRecord decode(byte[] payload) {
        ByteBuffer in = ByteBuffer.wrap(payload);
        try {
            byte type = in.get();
            LogRecord record = switch (type) {
                case CREATE, CREATE_KEYED -> {
                    String id = string(in);
                    int n = in.getInt();
                    List<Column> cols = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        cols.add(new Column(string(in), DatumType.fromJson(string(in)), in.get() != 0));
                    }
                    yield new LogRecord.CreateTable(id, new Schema(cols), type == CREATE_KEYED ? keys(in, n) : List.of());
                }
                case DROP -> new LogRecord.DropTable(string(in));
                case ADD_KEY -> {
                    String id = string(in);
                    UniqueKey key = key(in, Integer.MAX_VALUE);
                    yield new LogRecord.AddKey(id, key, in.get() != 0 ? swap(in) : null);
                }
                case DROP_KEY -> {
                    String id = string(in);
                    String name = string(in);
                    yield new LogRecord.DropKey(id, name, in.get() != 0 ? swap(in) : null);
                }
                case WRITE, WRITE_SWAP -> {
                    String id = string(in);
                    long time = in.getLong();
                    List<RowDiff> updates = rows(payload, in);
                    yield new LogRecord.Write(id, time, updates, type == WRITE_SWAP ? swap(in) : null);
                }
                case WRITE_TABLES -> {
                    long time = in.getLong();
                    boolean swapped = in.get() != 0;
                    int n = in.getInt();
                    if (n < 0 || n > in.remaining()) {
                        throw new IllegalStateException("part count " + n + " out of bounds");
                    }
                    List<LogRecord.Write> parts = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        String id = string(in);
                        parts.add(new LogRecord.Write(id, time, rows(payload, in)));
                    }
                    yield new LogRecord.WriteTables(time, parts, swapped ? swap(in) : null);
                }
                case PUT -> new LogRecord.CatalogPut(string(in), string(in));
                case REMOVE -> new LogRecord.CatalogRemove(string(in));
                case CATALOG_CHANGE -> new LogRecord.CatalogChange(swap(in));
                case SINCE -> new LogRecord.Since(string(in), in.getLong());
                case CLOCK -> new LogRecord.Clock(in.getLong());
                default -> throw new IllegalStateException("unknown record type " + type);
            };
            if (in.hasRemaining()) {
                throw new IllegalStateException(in.remaining() + " trailing bytes after a record of type " + type);
            }
            return record;
        } catch (RuntimeException e) {
            if (e instanceof IllegalStateException) {
                throw e;
            }
            throw new IllegalStateException("malformed log record: " + e, e);
        }
    }

    private static List<UniqueKey> keys(ByteBuffer in, int arity) {
        int n = in.getInt();
        if (n < 1 || n > in.remaining()) {
            throw new IllegalStateException("key count " + n + " out of bounds");
        }
        List<UniqueKey> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(key(in, arity));
        }
        return keys;
    }

    /** One key, of a table of {@code arity} columns. */
    private static UniqueKey key(ByteBuffer in, int arity) {
        String name = string(in);
        boolean primary = in.get() != 0;
        int k = in.getInt();
        if (k < 1 || k > arity || k > in.remaining()) {
            throw new IllegalStateException("key column count " + k + " out of bounds");
        }
        List<Integer> cols = new ArrayList<>(k);
        for (int j = 0; j < k; j++) {
            int c = in.getInt();
            if (c < 0 || c >= arity) {
                throw new IllegalStateException("key column " + c + " out of bounds");
            }
            cols.add(c);
        }
        try {
            return new UniqueKey(name, cols, primary);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("malformed key: " + e.getMessage(), e);
        }
    }

    /** A write's rows: their count, then each row (length-prefixed) and its diff; rows are views into {@code payload}. */
    private static List<RowDiff> rows(byte[] payload, ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalStateException("row count " + n + " out of bounds");
        }
        List<RowDiff> updates = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int rowLen = in.getInt();
            if (rowLen < 0 || rowLen > in.remaining()) {
                throw new IllegalStateException("row length " + rowLen + " out of bounds");
            }
            Row row = Row.canonical(payload, in.position(), rowLen);
            in.position(in.position() + rowLen);
            updates.add(new RowDiff(row, in.getLong()));
        }
        return updates;
    }

    private static CatalogSwap swap(ByteBuffer in) {
        String guardKey = string(in);
        String guardValue = in.get() != 0 ? string(in) : null;
        int puts = in.getInt();
        if (puts < 0 || puts > in.remaining()) {
            throw new IllegalStateException("catalog put count " + puts + " out of bounds");
        }
        Map<String, String> put = new HashMap<>();
        for (int i = 0; i < puts; i++) {
            put.put(string(in), string(in));
        }
        int removes = in.getInt();
        if (removes < 0 || removes > in.remaining()) {
            throw new IllegalStateException("catalog remove count " + removes + " out of bounds");
        }
        List<String> remove = new ArrayList<>(removes);
        for (int i = 0; i < removes; i++) {
            remove.add(string(in));
        }
        return new CatalogSwap(guardKey, guardValue, put, remove);
    }

    private static String string(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || n > in.remaining()) {
            throw new IllegalStateException("string length " + n + " out of bounds");
        }
        String s = new String(in.array(), in.position(), n, StandardCharsets.UTF_8);
        in.position(in.position() + n);
        return s;
    }
}
