package dev.tandem.row;

import java.util.Locale;

/** The scalar types a column may hold; each is nullable per column. */
public enum DatumType {
    BOOL(1),
    INT64(2),
    FLOAT64(3),
    STRING(4),
    TIMESTAMP(5),
    /** PostgreSQL's exact {@code numeric}: a {@link java.math.BigDecimal} of non-negative scale (its display scale). */
    NUMERIC(6),
    /** PostgreSQL's {@code date}: a {@link java.time.LocalDate} of years 1 to 9999. */
    DATE(7),
    /** PostgreSQL's {@code timestamp with time zone}: a {@link TimestampTz}, an instant in microseconds since the epoch. */
    TIMESTAMPTZ(8),
    /** PostgreSQL's {@code uuid}: a {@link java.util.UUID}, ordered as its 16 bytes unsigned. */
    UUID(9),
    /** PostgreSQL's {@code interval}: an {@link Interval} of months, days and microseconds. */
    INTERVAL(10),
    /** PostgreSQL's {@code jsonb}: a {@link Jsonb}, in PostgreSQL's normal form and order. */
    JSONB(11),
    /** PostgreSQL's {@code bytea}: a {@link Bytea}, ordered by its bytes unsigned. */
    BYTEA(12),
    /** PostgreSQL's {@code time} (without time zone): a {@link TimeOfDay}, microseconds since midnight. */
    TIME(13),
    /** PostgreSQL's one-dimensional arrays of a scalar type: a {@link DatumArray} of that type's values (NULLs allowed). */
    BOOL_ARRAY(0x21, BOOL),
    INT64_ARRAY(0x22, INT64),
    FLOAT64_ARRAY(0x23, FLOAT64),
    STRING_ARRAY(0x24, STRING),
    TIMESTAMP_ARRAY(0x25, TIMESTAMP),
    NUMERIC_ARRAY(0x26, NUMERIC),
    DATE_ARRAY(0x27, DATE),
    TIMESTAMPTZ_ARRAY(0x28, TIMESTAMPTZ),
    UUID_ARRAY(0x29, UUID);

    /**
     * Tag byte of a non-null datum of this type in the packed row encoding (an int64's tag also
     * carries its sign and length: see {@link Row}); with the NULL flag, the tag of a NULL.
     */
    final byte tag;
    private final DatumType element;

    DatumType(int tag) {
        this(tag, null);
    }

    DatumType(int tag, DatumType element) {
        this.tag = (byte) tag;
        this.element = element;
    }

    /** The type of this array type's elements, or null when this is a scalar type. */
    public DatumType element() {
        return element;
    }

    /** Whether this is an array type. */
    public boolean isArray() {
        return element != null;
    }

    /** The array type of {@code element}'s values, or null when Tandem has none (arrays of intervals, jsonb, bytea, arrays). */
    public static DatumType arrayOf(DatumType element) {
        for (DatumType t : values()) {
            if (t.element == element) {
                return t;
            }
        }
        return null;
    }

    /** Tag byte of a NULL of this type; it is greater than {@link #tag}, so NULL sorts last. */
    byte nullTag() {
        return (byte) (0x40 | tag);
    }

    /** The lower-case name used in JSON ({@code "int64"}). */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a JSON type name; throws {@link IllegalArgumentException} with the accepted names. */
    public static DatumType fromJson(String name) {
        if (name != null) {
            for (DatumType t : values()) {
                if (t.jsonName().equals(name)) {
                    return t;
                }
            }
        }
        throw new IllegalArgumentException("unknown type '" + name + "'; expected one of bool, int64, float64, string, timestamp, numeric, date, timestamptz, uuid, interval, jsonb, bytea, time"
                + " or an array of bool, int64, float64, string, timestamp, numeric, date, timestamptz or uuid (\"int64_array\")");
    }

    static DatumType ofTag(byte tag) {
        int base = tag & 0x3f;
        if ((tag & 0x40) == 0 && Row.isInt64Tag(tag)) {
            return INT64;
        }
        for (DatumType t : values()) {
            if (t.tag == base) {
                return t;
            }
        }
        throw new IllegalStateException("corrupt row encoding: tag " + tag);
    }

    /** Whether {@code value} is a Java value of this type: Boolean, Long, Double, String, {@link Timestamp}, BigDecimal, LocalDate, {@link TimestampTz}, UUID, {@link Interval}, {@link Jsonb}, {@link Bytea}, {@link TimeOfDay} or {@link DatumArray}. */
    public boolean accepts(Object value) {
        return switch (this) {
            case BOOL -> value instanceof Boolean;
            case INT64 -> value instanceof Long;
            case FLOAT64 -> value instanceof Double;
            case STRING -> value instanceof String;
            case TIMESTAMP -> value instanceof Timestamp;
            case NUMERIC -> value instanceof java.math.BigDecimal d && d.scale() >= 0;
            case DATE -> value instanceof java.time.LocalDate d && d.getYear() >= 1 && d.getYear() <= 9999;
            case TIMESTAMPTZ -> value instanceof TimestampTz;
            case UUID -> value instanceof java.util.UUID;
            case INTERVAL -> value instanceof Interval;
            case JSONB -> value instanceof Jsonb;
            case BYTEA -> value instanceof Bytea;
            case TIME -> value instanceof TimeOfDay;
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> value instanceof DatumArray a && a.elementType() == element;
        };
    }
}
