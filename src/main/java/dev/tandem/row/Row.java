package dev.tandem.row;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable row of datums in a packed, self-describing, order-preserving byte encoding.
 *
 * <p>Each datum is a tag byte (its type, with a NULL flag) followed by its payload: one byte for
 * {@code bool}; for {@code int64} only the bytes its magnitude needs (0 to 8), the tag telling sign and
 * length so that shorter positives sort before longer ones and longer negatives before shorter ones
 * (see {@link RowPacker#pushInt64}); eight big-endian bytes for {@code timestamp}, {@code timestamptz}, {@code time} (microseconds) and {@code date} (days since the epoch),
 * sign bit flipped; for {@code uuid} its sixteen bytes; for {@code interval} its span (128 bits, see {@link RowPacker#pushInterval}), then
 * its months, days and microseconds; for {@code jsonb} its order key (see {@link Jsonb#sortKey}) then its text, each
 * escaped and terminated as a string's; for {@code bytea} its bytes escaped and terminated as a string's; for an array
 * its elements packed as datums then a {@code 0x00} terminator (below every tag, so a shorter array sorts before one it begins); and
 * for {@code float64} (IEEE bits made sortable); for {@code string} the UTF-8 bytes with {@code 0x00}
 * escaped as {@code 00 FF} and terminated by {@code 00 01}; for {@code numeric} sign, exponent and digits
 * in an order-preserving form, then the display scale (see {@link RowPacker#pushNumeric}). NULL has no payload and a larger tag, so it
 * sorts last. Rows of one schema therefore compare correctly as unsigned byte strings, and equality
 * and hash are those of the bytes. Float order is total: {@code -0.0 < 0.0}, every NaN is one
 * canonical NaN and sorts after {@code +Infinity}. Strings order by code point.
 *
 * <p>A row may be a view of a slice of a larger array (a batch's key or value storage), so reading
 * a trace never copies row bytes.
 */
public final class Row implements Comparable<Row> {

    private static final VarHandle BIG_ENDIAN_LONGS = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.BIG_ENDIAN);

    /** MurmurHash3's 64-bit mixing multipliers, for {@link #hash64()}. */
    private static final long HASH_C1 = 0x87c37b91114253d5L;
    private static final long HASH_C2 = 0x4cf5ad432745937fL;

    /** The row with no columns. */
    public static final Row EMPTY = new Row(new byte[0], 0, 0);

    private final byte[] bytes;
    private final int offset;
    private final int length;
    private int hash;

    Row(byte[] bytes, int offset, int length) {
        this.bytes = bytes;
        this.offset = offset;
        this.length = length;
    }

    /** A view of an encoded row stored at {@code bytes[offset, offset+length)}; the array must not change. */
    public static Row wrap(byte[] bytes, int offset, int length) {
        return new Row(bytes, offset, length);
    }

    /**
     * A view of the encoded row at {@code bytes[offset, offset+length)} as {@link #wrap} gives, unless it
     * holds int64s in the fixed eight-byte encoding of logs written before the variable-length one, or a
     * float64 {@code -0.0} (or a NaN other than the canonical one) packed before {@link RowPacker#pushFloat64}
     * made them {@code 0.0} and the canonical NaN: those are re-encoded into a new row, so equal values have
     * equal bytes whatever wrote them.
     */
    public static Row canonical(byte[] bytes, int offset, int length) {
        int end = offset + length;
        for (int p = offset; p < end; p = skip(bytes, p)) {
            if (bytes[p] == LEGACY_INT64_TAG || nonCanonicalFloat64(bytes, p)) {
                RowPacker packer = new RowPacker(length);
                for (int q = offset; q < end; q = skip(bytes, q)) {
                    if (bytes[q] == LEGACY_INT64_TAG) {
                        packer.pushInt64((Long) decode(bytes, q));
                    } else if (nonCanonicalFloat64(bytes, q)) {
                        packer.pushFloat64((Double) decode(bytes, q));
                    } else {
                        packer.appendRaw(bytes, q, skip(bytes, q) - q);
                    }
                }
                return packer.finish();
            }
        }
        return new Row(bytes, offset, length);
    }

    /** Whether the datum at {@code p} is a float64 whose bytes are not {@link RowPacker#pushFloat64}'s for its value. */
    private static boolean nonCanonicalFloat64(byte[] bytes, int p) {
        if (bytes[p] != DatumType.FLOAT64.tag) {
            return false;
        }
        long packed = readLong(bytes, p + 1);
        double v = (Double) decode(bytes, p);
        long bits = Double.doubleToLongBits(v == 0.0 ? 0.0 : v);
        return packed != (bits < 0 ? ~bits : bits ^ Long.MIN_VALUE);
    }

    /** Packs non-null values, inferring each type from its Java class. */
    public static Row of(Object... values) {
        RowPacker p = new RowPacker();
        for (Object v : values) {
            p.push(typeOf(v), v);
        }
        return p.finish();
    }

    /** Packs values (which may be null) of the given types. */
    public static Row pack(List<DatumType> types, List<?> values) {
        if (types.size() != values.size()) {
            throw new IllegalArgumentException("expected " + types.size() + " values, got " + values.size());
        }
        RowPacker p = new RowPacker();
        for (int i = 0; i < values.size(); i++) {
            p.push(types.get(i), values.get(i));
        }
        return p.finish();
    }

    static DatumType typeOf(Object v) {
        if (v instanceof Boolean) return DatumType.BOOL;
        if (v instanceof Long) return DatumType.INT64;
        if (v instanceof Double) return DatumType.FLOAT64;
        if (v instanceof String) return DatumType.STRING;
        if (v instanceof Timestamp) return DatumType.TIMESTAMP;
        if (v instanceof java.math.BigDecimal) return DatumType.NUMERIC;
        if (v instanceof java.time.LocalDate) return DatumType.DATE;
        if (v instanceof TimestampTz) return DatumType.TIMESTAMPTZ;
        if (v instanceof java.util.UUID) return DatumType.UUID;
        if (v instanceof Interval) return DatumType.INTERVAL;
        if (v instanceof Jsonb) return DatumType.JSONB;
        if (v instanceof Bytea) return DatumType.BYTEA;
        if (v instanceof TimeOfDay) return DatumType.TIME;
        if (v instanceof DatumArray a) return a.type();
        throw new IllegalArgumentException("not a datum: " + (v == null ? "null (use Row.pack with types)" : v.getClass().getName()));
    }

    /** Length of the encoding in bytes. */
    public int byteSize() {
        return length;
    }

    /** Copies the encoding into {@code dst} at {@code at}. */
    public void copyTo(byte[] dst, int at) {
        System.arraycopy(bytes, offset, dst, at, length);
    }

    /** The number of datums. */
    public int arity() {
        return arity(bytes, offset, offset + length);
    }

    /** The number of datums of the encoded row at {@code b[from, to)}. */
    public static int arity(byte[] b, int from, int to) {
        int n = 0;
        for (int p = from; p < to; p = skip(b, p)) {
            n++;
        }
        return n;
    }

    /** Decodes all datums: Boolean, Long, Double, String, {@link Timestamp}, BigDecimal, LocalDate, {@link TimestampTz}, UUID, {@link Interval}, {@link Jsonb}, {@link Bytea}, {@link TimeOfDay} or null. */
    public Object[] unpack() {
        Object[] out = new Object[arity()];
        int p = offset;
        for (int i = 0; i < out.length; i++) {
            out[i] = decode(bytes, p);
            p = skip(bytes, p);
        }
        return out;
    }

    /** Decodes datum {@code i}. */
    public Object get(int i) {
        return decode(bytes, position(i));
    }

    /** The type of datum {@code i}, known from its tag even when it is NULL. */
    public DatumType typeAt(int i) {
        return DatumType.ofTag(bytes[position(i)]);
    }

    /** A new row of the datums at {@code columns}, copied without decoding. */
    public Row project(int[] columns) {
        RowPacker p = new RowPacker(length);
        for (int c : columns) {
            int at = position(c);
            p.appendRaw(bytes, at, skip(bytes, at) - at);
        }
        return p.finish();
    }

    /**
     * Writes the encodings of the datums at {@code columns} into {@code dst} at {@code at}, without
     * decoding, and returns the position after them. {@code dst} needs room for at most
     * {@link #byteSize()} bytes per projected column set that repeats no column.
     */
    public int projectInto(int[] columns, byte[] dst, int at) {
        return projectInto(bytes, offset, offset + length, columns, dst, at);
    }

    /** As {@link #projectInto(int[], byte[], int)}, for the encoded row at {@code src[from, to)}. */
    public static int projectInto(byte[] src, int from, int to, int[] columns, byte[] dst, int at) {
        for (int c : columns) {
            int p = position(src, from, to, c);
            int n = skip(src, p) - p;
            System.arraycopy(src, p, dst, at, n);
            at += n;
        }
        return at;
    }

    /** This row followed by {@code other}'s datums. */
    public Row concat(Row other) {
        byte[] out = new byte[length + other.length];
        System.arraycopy(bytes, offset, out, 0, length);
        System.arraycopy(other.bytes, other.offset, out, length, other.length);
        return new Row(out, 0, out.length);
    }

    /** Whether any datum of this row is NULL (read from the tags, without decoding). */
    public boolean hasNull() {
        for (int p = offset, end = offset + length; p < end; p = skip(bytes, p)) {
            if ((bytes[p] & 0x40) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether any datum at {@code columns} of the row encoded at {@code b[from, to)} is NULL (read from the tags). */
    public static boolean anyNull(byte[] b, int from, int to, int[] columns) {
        int last = -1;
        for (int c : columns) {
            last = Math.max(last, c);
        }
        int p = from;
        for (int c = 0; c <= last && p < to; c++, p = skip(b, p)) {
            if ((b[p] & 0x40) != 0) {
                for (int k : columns) {
                    if (k == c) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Whether datum {@code i} of this row equals datum {@code j} of {@code other} and is not NULL (SQL's
     * {@code =}), without decoding either: equal values have equal bytes.
     */
    public boolean sqlEquals(int i, Row other, int j) {
        int p = position(i);
        if ((bytes[p] & 0x40) != 0) {
            return false;
        }
        int q = other.position(j);
        return Arrays.equals(bytes, p, skip(bytes, p), other.bytes, q, skip(other.bytes, q));
    }

    private int position(int i) {
        return position(bytes, offset, offset + length, i);
    }

    private static int position(byte[] bytes, int offset, int end, int i) {
        int p = offset;
        for (int k = 0; k < i; k++) {
            if (p >= end) {
                throw new IndexOutOfBoundsException("column " + i + " of a row with " + k + " columns");
            }
            p = skip(bytes, p);
        }
        if (p >= end) {
            throw new IndexOutOfBoundsException("column " + i + " of a row with " + i + " columns");
        }
        return p;
    }

    /** Tag of the int64 zero; other int64 tags lie in {@code [ZERO - 9, ZERO + 8]}, all below any NULL tag. */
    static final int INT64_ZERO_TAG = 0x18;
    /** The int64 tag of rows written before the variable-length encoding (a flipped sign bit and eight bytes). */
    static final int LEGACY_INT64_TAG = 2;

    /** Whether {@code tag} is a non-null int64's. */
    static boolean isInt64Tag(int tag) {
        return tag >= INT64_ZERO_TAG - 9 && tag <= INT64_ZERO_TAG + 8;
    }

    /** The payload bytes of the int64 {@code v}: those of {@code v}, or of its complement when negative. */
    static int int64Bytes(long v) {
        long magnitude = v < 0 ? ~v : v;
        return (Long.SIZE - Long.numberOfLeadingZeros(magnitude) + 7) / 8;
    }

    /**
     * The position after the {@code n} datums that start at {@code p} in {@code b}, which must encode
     * that many: the end of a row's first {@code n} columns.
     */
    public static int skip(byte[] b, int p, int n) {
        for (int i = 0; i < n; i++) {
            p = skip(b, p);
        }
        return p;
    }

    /** The position after the datum that starts at {@code p}. */
    static int skip(byte[] b, int p) {
        byte tag = b[p];
        if ((tag & 0x40) != 0) {
            return p + 1;
        }
        if (isInt64Tag(tag)) {
            return p + 1 + (tag >= INT64_ZERO_TAG ? tag - INT64_ZERO_TAG : INT64_ZERO_TAG - 1 - tag);
        }
        if (tag > INT64_ZERO_TAG + 8) {
            int q = p + 1;
            while (b[q] != 0) {
                q = skip(b, q);
            }
            return q + 1;
        }
        return switch (tag) {
            case 1 -> p + 2;
            case 2, 3, 5, 7, 8, 13 -> p + 9;
            case 9 -> p + 17;
            case 10 -> p + 33;
            case 4, 12 -> stringEnd(b, p + 1);
            case 11 -> stringEnd(b, stringEnd(b, p + 1));
            case 6 -> numericEnd(b, p) + 2;
            default -> throw new IllegalStateException("corrupt row encoding: tag " + tag);
        };
    }

    /** The position after the escaped bytes starting at {@code q} and their {@code 00 01} terminator. */
    private static int stringEnd(byte[] b, int q) {
        while (!(b[q] == 0 && b[q + 1] == 1)) {
            q += b[q] == 0 ? 2 : 1;
        }
        return q + 2;
    }

    /** The position of the scale bytes of the numeric at {@code p} (see {@link RowPacker#pushNumeric}). */
    private static int numericEnd(byte[] b, int p) {
        int sign = b[p + 1];
        if (sign == 1) {
            return p + 2;
        }
        byte terminator = (byte) (sign == 0 ? 0xFF : 0);
        int q = p + 6;
        while (b[q] != terminator) {
            q++;
        }
        return q + 1;
    }

    private static java.math.BigDecimal decodeNumeric(byte[] b, int p) {
        int end = numericEnd(b, p);
        int scale = ((b[end] & 0xff) << 8) | (b[end + 1] & 0xff);
        int sign = b[p + 1];
        if (sign == 1) {
            return java.math.BigDecimal.ZERO.setScale(scale);
        }
        int flip = sign == 0 ? 0xFF : 0;
        int e = 0;
        for (int i = 0; i < 4; i++) {
            e = (e << 8) | ((b[p + 2 + i] ^ flip) & 0xff);
        }
        int exponent = e ^ Integer.MIN_VALUE;
        StringBuilder digits = new StringBuilder(end - p - 7);
        for (int q = p + 6; q < end - 1; q++) {
            digits.append((char) ((b[q] ^ flip) & 0xff));
        }
        java.math.BigDecimal v = new java.math.BigDecimal(new java.math.BigInteger(digits.toString()), digits.length() - exponent);
        return (sign == 0 ? v.negate() : v).setScale(scale);
    }

    static Object decode(byte[] b, int p) {
        byte tag = b[p];
        if ((tag & 0x40) != 0) {
            return null;
        }
        if (isInt64Tag(tag)) {
            boolean negative = tag < INT64_ZERO_TAG;
            int n = negative ? INT64_ZERO_TAG - 1 - tag : tag - INT64_ZERO_TAG;
            long v = negative ? -1L : 0L;
            for (int i = 1; i <= n; i++) {
                v = (v << 8) | (b[p + i] & 0xffL);
            }
            return v;
        }
        if (tag > INT64_ZERO_TAG + 8) {
            DatumType type = DatumType.ofTag(tag);
            List<Object> elements = new java.util.ArrayList<>();
            for (int q = p + 1; b[q] != 0; q = skip(b, q)) {
                elements.add(decode(b, q));
            }
            return new DatumArray(type.element(), elements);
        }
        return switch (tag) {
            case 1 -> b[p + 1] != 0;
            case 2 -> readLong(b, p + 1) ^ Long.MIN_VALUE;
            case 5 -> new Timestamp(readLong(b, p + 1) ^ Long.MIN_VALUE);
            case 7 -> java.time.LocalDate.ofEpochDay(readLong(b, p + 1) ^ Long.MIN_VALUE);
            case 8 -> new TimestampTz(readLong(b, p + 1) ^ Long.MIN_VALUE);
            case 13 -> new TimeOfDay(readLong(b, p + 1) ^ Long.MIN_VALUE);
            case 9 -> new java.util.UUID(readLong(b, p + 1), readLong(b, p + 9));
            case 10 -> new Interval((int) (readLong(b, p + 17) >>> 32) ^ Integer.MIN_VALUE, (int) readLong(b, p + 17) ^ Integer.MIN_VALUE,
                    readLong(b, p + 25) ^ Long.MIN_VALUE);
            case 3 -> {
                long bits = readLong(b, p + 1);
                yield Double.longBitsToDouble(bits < 0 ? bits ^ Long.MIN_VALUE : ~bits);
            }
            case 4 -> decodeString(b, p + 1);
            case 12 -> new Bytea(decodeBytes(b, p + 1));
            case 11 -> Jsonb.parse(decodeString(b, stringEnd(b, p + 1)));
            case 6 -> decodeNumeric(b, p);
            default -> throw new IllegalStateException("corrupt row encoding: tag " + tag);
        };
    }

    private static byte[] decodeBytes(byte[] b, int start) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (int q = start; !(b[q] == 0 && b[q + 1] == 1); q++) {
            out.write(b[q]);
            if (b[q] == 0) {
                q++;
            }
        }
        return out.toByteArray();
    }

    private static String decodeString(byte[] b, int start) {
        int q = start;
        boolean escaped = false;
        while (!(b[q] == 0 && b[q + 1] == 1)) {
            if (b[q] == 0) {
                escaped = true;
                q += 2;
            } else {
                q++;
            }
        }
        if (!escaped) {
            return new String(b, start, q - start, StandardCharsets.UTF_8);
        }
        byte[] raw = new byte[q - start];
        int n = 0;
        for (int i = start; i < q; i++) {
            raw[n++] = b[i];
            if (b[i] == 0) {
                i++;
            }
        }
        return new String(raw, 0, n, StandardCharsets.UTF_8);
    }

    static long readLong(byte[] b, int p) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[p + i] & 0xffL);
        }
        return v;
    }

    @Override
    public int compareTo(Row o) {
        return compare(bytes, offset, offset + length, o.bytes, o.offset, o.offset + o.length);
    }

    /**
     * The first eight bytes of the encoding as an unsigned big-endian long, zero-padded: rows whose
     * prefixes differ compare as their prefixes do, so sorts can decide most comparisons on a long.
     */
    public long orderPrefix() {
        return orderPrefix(bytes, offset, offset + length);
    }

    /**
     * The {@linkplain #orderPrefix() order prefix} of the encoding after its first {@code skip} bytes (zero
     * when it has no more): among rows that all begin with the same {@code skip} bytes, it orders them as
     * {@link #orderPrefix()} orders rows in general.
     */
    public long orderPrefix(int skip) {
        return orderPrefix(bytes, offset + Math.min(skip, length), offset + length);
    }

    /** Whether this row's encoding begins with all of {@code prefix}'s bytes. */
    public boolean startsWith(Row prefix) {
        return prefix.length == 0 || prefix.length <= length
                && Arrays.equals(bytes, offset, offset + prefix.length, prefix.bytes, prefix.offset, prefix.offset + prefix.length);
    }

    /** The {@linkplain #orderPrefix() order prefix} of the encoded row at {@code b[from, to)}. */
    public static long orderPrefix(byte[] b, int from, int to) {
        if (to - from >= Long.BYTES) {
            return (long) BIG_ENDIAN_LONGS.get(b, from);
        }
        long p = 0;
        for (int i = from; i < from + Long.BYTES; i++) {
            p = (p << 8) | (i < to ? b[i] & 0xffL : 0);
        }
        return p;
    }

    /** Compares this row with the encoded row at {@code other[from, to)}. */
    public int compareTo(byte[] other, int from, int to) {
        return compare(bytes, offset, offset + length, other, from, to);
    }

    /**
     * Compares the encoded rows {@code a[aFrom, aTo)} and {@code b[bFrom, bTo)} as unsigned byte
     * strings (the sign is what counts), eight bytes at a time: rows are short, so this beats the
     * set-up cost of {@link Arrays#compareUnsigned(byte[], int, int, byte[], int, int)}.
     */
    public static int compare(byte[] a, int aFrom, int aTo, byte[] b, int bFrom, int bTo) {
        int aLen = aTo - aFrom;
        int bLen = bTo - bFrom;
        int n = Math.min(aLen, bLen);
        int i = 0;
        for (; i + Long.BYTES <= n; i += Long.BYTES) {
            long x = (long) BIG_ENDIAN_LONGS.get(a, aFrom + i);
            long y = (long) BIG_ENDIAN_LONGS.get(b, bFrom + i);
            if (x != y) {
                return Long.compareUnsigned(x, y);
            }
        }
        for (; i < n; i++) {
            int x = a[aFrom + i] & 0xff;
            int y = b[bFrom + i] & 0xff;
            if (x != y) {
                return x - y;
            }
        }
        return Integer.compare(aLen, bLen);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Row r
                && Arrays.equals(bytes, offset, offset + length, r.bytes, r.offset, r.offset + r.length);
    }

    /** The {@linkplain #hash64() 64-bit hash} folded to 32 bits (cached): well mixed, as hash tables of sequential keys need. */
    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            long x = hash64(bytes, offset, offset + length);
            h = (int) (x ^ (x >>> 32));
            h = h == 0 ? 1 : h;
            hash = h;
        }
        return h;
    }

    /**
     * A 64-bit hash of the encoding with every bit well mixed, for hash filters (such as a batch's key
     * filter) that take several independent bit fields from one hash. Equal rows have equal hashes,
     * whatever array slice holds them. Not randomised: inputs chosen to collide can only make a filter
     * less selective, never wrong.
     */
    public long hash64() {
        return hash64(bytes, offset, offset + length);
    }

    /** The {@linkplain #hash64() 64-bit hash} of the encoded row at {@code b[from, to)}. */
    public static long hash64(byte[] b, int from, int to) {
        long h = to - from;
        int i = from;
        for (; i + Long.BYTES <= to; i += Long.BYTES) {
            h = hashWord(h, (long) BIG_ENDIAN_LONGS.get(b, i));
        }
        if (i < to) {
            long tail = 0;
            for (; i < to; i++) {
                tail = (tail << Byte.SIZE) | (b[i] & 0xffL);
            }
            h = hashWord(h, tail);
        }
        return finishHash(h);
    }

    /** Folds one eight-byte word into the hash state (the body step of MurmurHash3's 64-bit variant). */
    private static long hashWord(long h, long word) {
        return Long.rotateLeft(h ^ Long.rotateLeft(word * HASH_C1, 31) * HASH_C2, 27) * 5 + 0x52dce729;
    }

    /** MurmurHash3's 64-bit finaliser: every input bit affects every output bit. */
    private static long finishHash(long h) {
        h = (h ^ (h >>> 33)) * 0xff51afd7ed558ccdL;
        h = (h ^ (h >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return h ^ (h >>> 33);
    }

    @Override
    public String toString() {
        return Arrays.toString(unpack());
    }
}
