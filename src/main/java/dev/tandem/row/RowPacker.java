package dev.tandem.row;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Builds one {@link Row} datum by datum; reusable after {@link #finish()}. */
public final class RowPacker {

    private byte[] buf;
    private int len;

    public RowPacker() {
        this(32);
    }

    public RowPacker(int capacity) {
        buf = new byte[Math.max(capacity, 8)];
    }

    private void ensure(int more) {
        if (len + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
        }
    }

    public RowPacker pushNull(DatumType type) {
        ensure(1);
        buf[len++] = type.nullTag();
        return this;
    }

    public RowPacker pushBool(boolean v) {
        ensure(2);
        buf[len++] = DatumType.BOOL.tag;
        buf[len++] = (byte) (v ? 1 : 0);
        return this;
    }

    /**
     * Pushes an int64 in as few bytes as its magnitude needs: a tag that orders by sign and length
     * ({@link Row#INT64_ZERO_TAG} {@code + n} for a non-negative value of {@code n} significant bytes,
     * {@link Row#INT64_ZERO_TAG} {@code - 1 - n} for a negative one whose complement has {@code n}), then
     * those {@code n} low bytes, big-endian. Equal values have one encoding, and byte order is value order.
     */
    public RowPacker pushInt64(long v) {
        int n = Row.int64Bytes(v);
        ensure(1 + n);
        buf[len++] = (byte) (v >= 0 ? Row.INT64_ZERO_TAG + n : Row.INT64_ZERO_TAG - 1 - n);
        for (int shift = 8 * (n - 1); shift >= 0; shift -= 8) {
            buf[len++] = (byte) (v >>> shift);
        }
        return this;
    }

    public RowPacker pushTimestamp(long micros) {
        return pushFixed(DatumType.TIMESTAMP, micros ^ Long.MIN_VALUE);
    }

    /** Pushes a date as eight big-endian bytes of its day since the epoch, sign bit flipped. */
    public RowPacker pushDate(java.time.LocalDate date) {
        return pushFixed(DatumType.DATE, date.toEpochDay() ^ Long.MIN_VALUE);
    }

    /** Pushes a time of day as eight big-endian bytes of its microseconds since midnight, sign bit flipped. */
    public RowPacker pushTime(TimeOfDay time) {
        return pushFixed(DatumType.TIME, time.micros() ^ Long.MIN_VALUE);
    }

    /** Pushes a uuid as its sixteen bytes, big-endian: byte order is PostgreSQL's order of uuids. */
    public RowPacker pushUuid(java.util.UUID v) {
        pushFixed(DatumType.UUID, v.getMostSignificantBits());
        ensure(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            buf[len++] = (byte) (v.getLeastSignificantBits() >>> shift);
        }
        return this;
    }

    /**
     * Pushes an interval as its span in microseconds (a month counted as 30 days, as PostgreSQL compares intervals), a
     * signed 128-bit number in sixteen big-endian bytes, sign bit flipped; then its months and days (four bytes each)
     * and microseconds (eight), sign bits flipped: intervals of one span ({@code 1 mon}, {@code 30 days}) order by
     * their parts.
     */
    public RowPacker pushInterval(Interval v) {
        long[] span = v.span();
        pushFixed(DatumType.INTERVAL, span[0] ^ Long.MIN_VALUE);
        ensure(24);
        long parts = ((long) (v.months() ^ Integer.MIN_VALUE) << 32) | ((v.days() ^ Integer.MIN_VALUE) & 0xFFFFFFFFL);
        for (long word : new long[] {span[1], parts, v.micros() ^ Long.MIN_VALUE}) {
            for (int shift = 56; shift >= 0; shift -= 8) {
                buf[len++] = (byte) (word >>> shift);
            }
        }
        return this;
    }

    /** Pushes a timestamp with time zone as a timestamp is pushed: its microseconds since the epoch. */
    public RowPacker pushTimestampTz(long micros) {
        return pushFixed(DatumType.TIMESTAMPTZ, micros ^ Long.MIN_VALUE);
    }

    /**
     * Pushes a float64 as PostgreSQL's float8 compares it: {@code -0.0} is packed as {@code 0.0} (they are
     * one value, so equal rows have one encoding) and every NaN as the one canonical NaN, which sorts above
     * every other value. A stored {@code -0.0} therefore reads back as {@code 0.0}.
     */
    public RowPacker pushFloat64(double v) {
        long bits = Double.doubleToLongBits(v == 0.0 ? 0.0 : v);
        return pushFixed(DatumType.FLOAT64, bits < 0 ? ~bits : bits ^ Long.MIN_VALUE);
    }

    public RowPacker pushString(String v) {
        ensure(1);
        buf[len++] = DatumType.STRING.tag;
        return escaped(v.getBytes(StandardCharsets.UTF_8));
    }

    /** Pushes a bytea: its bytes escaped as a string's (see {@link Row}), which keeps their unsigned order. */
    public RowPacker pushBytea(Bytea v) {
        ensure(1);
        buf[len++] = DatumType.BYTEA.tag;
        return escaped(v.bytes());
    }

    /** Pushes an array: its elements as datums, then a {@code 0x00} terminator (see {@link Row}). */
    public RowPacker pushArray(DatumArray v) {
        ensure(1);
        buf[len++] = v.type().tag;
        for (Object e : v.elements()) {
            push(v.elementType(), e);
        }
        ensure(1);
        buf[len++] = 0;
        return this;
    }

    /** Pushes a jsonb: its order key then its text, each escaped as a string's bytes (see {@link Row}). */
    public RowPacker pushJsonb(Jsonb v) {
        ensure(1);
        buf[len++] = DatumType.JSONB.tag;
        escaped(v.sortKey());
        return escaped(v.text().getBytes(StandardCharsets.UTF_8));
    }

    private RowPacker escaped(byte[] bytes) {
        ensure(bytes.length * 2 + 2);
        for (byte b : bytes) {
            buf[len++] = b;
            if (b == 0) {
                buf[len++] = (byte) 0xFF;
            }
        }
        buf[len++] = 0;
        buf[len++] = 1;
        return this;
    }

    /**
     * Pushes a numeric in an order-preserving form: a sign byte ({@code 0} negative, {@code 1} zero,
     * {@code 2} positive); for a non-zero value its decimal exponent {@code e} (the value is {@code 0.d1d2... x
     * 10^e}, trailing zeros stripped) as four big-endian bytes with the sign bit flipped, then the digits as
     * ASCII and a {@code 0x00} terminator (for a negative, the exponent and digit bytes complemented and the
     * terminator {@code 0xFF}, so larger magnitudes sort first); last, the display scale in two bytes. Values
     * therefore order numerically, and one value of two display scales ({@code 1.0}, {@code 1.00}) by scale.
     */
    public RowPacker pushNumeric(java.math.BigDecimal v) {
        if (v.scale() < 0 || v.scale() > 0xFFFF) {
            throw new IllegalArgumentException("numeric scale out of range: " + v.scale());
        }
        int signum = v.signum();
        String digits = signum == 0 ? "" : v.unscaledValue().abs().toString().replaceFirst("0+$", "");
        ensure(digits.length() + 9);
        buf[len++] = DatumType.NUMERIC.tag;
        buf[len++] = (byte) (signum + 1);
        if (signum != 0) {
            int exponent = v.precision() - v.scale();
            int flip = signum < 0 ? 0xFF : 0;
            int e = exponent ^ Integer.MIN_VALUE;
            for (int shift = 24; shift >= 0; shift -= 8) {
                buf[len++] = (byte) ((e >>> shift) ^ flip);
            }
            for (int i = 0; i < digits.length(); i++) {
                buf[len++] = (byte) (digits.charAt(i) ^ flip);
            }
            buf[len++] = (byte) flip;
        }
        buf[len++] = (byte) (v.scale() >>> 8);
        buf[len++] = (byte) v.scale();
        return this;
    }

    /** Pushes a Java value (Boolean, Long, Double, String, {@link Timestamp}, BigDecimal, LocalDate, {@link TimestampTz}, UUID, {@link Interval}, {@link Jsonb}, {@link Bytea} or null) of {@code type}. */
    public RowPacker push(DatumType type, Object v) {
        if (v == null) {
            return pushNull(type);
        }
        if (!type.accepts(v)) {
            throw new IllegalArgumentException("expected " + type.jsonName() + ", got " + v.getClass().getSimpleName());
        }
        return switch (type) {
            case BOOL -> pushBool((Boolean) v);
            case INT64 -> pushInt64((Long) v);
            case FLOAT64 -> pushFloat64((Double) v);
            case STRING -> pushString((String) v);
            case TIMESTAMP -> pushTimestamp(((Timestamp) v).micros());
            case NUMERIC -> pushNumeric((java.math.BigDecimal) v);
            case DATE -> pushDate((java.time.LocalDate) v);
            case TIMESTAMPTZ -> pushTimestampTz(((TimestampTz) v).micros());
            case UUID -> pushUuid((java.util.UUID) v);
            case INTERVAL -> pushInterval((Interval) v);
            case JSONB -> pushJsonb((Jsonb) v);
            case BYTEA -> pushBytea((Bytea) v);
            case TIME -> pushTime((TimeOfDay) v);
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> pushArray((DatumArray) v);
        };
    }

    /** Appends the datums of an encoded row. */
    public RowPacker pushRow(Row row) {
        ensure(row.byteSize());
        row.copyTo(buf, len);
        len += row.byteSize();
        return this;
    }

    void appendRaw(byte[] src, int from, int n) {
        ensure(n);
        System.arraycopy(src, from, buf, len, n);
        len += n;
    }

    private RowPacker pushFixed(DatumType type, long v) {
        ensure(9);
        buf[len++] = type.tag;
        for (int shift = 56; shift >= 0; shift -= 8) {
            buf[len++] = (byte) (v >>> shift);
        }
        return this;
    }

    /** The row packed so far; the packer is then empty. */
    public Row finish() {
        Row r = new Row(Arrays.copyOf(buf, len), 0, len);
        len = 0;
        return r;
    }
}
