package dev.tandem.source.postgres;

import dev.tandem.row.DatumType;
import dev.tandem.row.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Map;

/**
 * PostgreSQL's types as Tandem holds them: which upstream types map to which datum type exactly, and
 * how a value's text form (as pgoutput and {@code COPY ... TO STDOUT} send it) becomes a datum.
 */
final class PgValues {

    /** Upstream types taken as they are, by {@code pg_type.typname}. */
    private static final Map<String, DatumType> TYPES = Map.ofEntries(
            Map.entry("int2", DatumType.INT64), Map.entry("int4", DatumType.INT64), Map.entry("int8", DatumType.INT64),
            Map.entry("float4", DatumType.FLOAT64), Map.entry("float8", DatumType.FLOAT64),
            Map.entry("bool", DatumType.BOOL),
            Map.entry("text", DatumType.STRING), Map.entry("varchar", DatumType.STRING), Map.entry("bpchar", DatumType.STRING),
            Map.entry("timestamp", DatumType.TIMESTAMP), Map.entry("numeric", DatumType.NUMERIC));

    /** The names of the supported upstream types, for messages. */
    static final String SUPPORTED = "smallint, integer, bigint, real, double precision, numeric, boolean, text, varchar, char, timestamp";

    private static final DateTimeFormatter TIMESTAMP = new DateTimeFormatterBuilder()
            .appendPattern("yyyy-MM-dd HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.NANO_OF_SECOND, 1, 9, true).optionalEnd()
            .toFormatter();

    private PgValues() {
    }

    /** The datum type an upstream type maps to exactly, or null if Tandem cannot hold it exactly. */
    static DatumType typeOf(String typname) {
        return TYPES.get(typname);
    }

    /** The datum of {@code text} (an upstream value's text form) as {@code type}; throws {@link IllegalArgumentException}. */
    static Object parse(DatumType type, String text) {
        return switch (type) {
            case STRING -> text;
            case INT64 -> Long.parseLong(text);
            case FLOAT64 -> switch (text) {
                case "NaN" -> Double.NaN;
                case "Infinity" -> Double.POSITIVE_INFINITY;
                case "-Infinity" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(text);
            };
            case BOOL -> switch (text) {
                case "t" -> Boolean.TRUE;
                case "f" -> Boolean.FALSE;
                default -> throw new IllegalArgumentException("not a boolean: '" + text + "'");
            };
            case TIMESTAMP -> timestamp(text);
            case NUMERIC -> numeric(text);
            case DATE, TIMESTAMPTZ, INTERVAL, TIME -> dev.tandem.sql.SqlValues.parse(text, type);
            case UUID -> java.util.UUID.fromString(text);
            case JSONB -> dev.tandem.row.Jsonb.parse(text);
            case BYTEA -> dev.tandem.row.Bytea.parse(text);
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> throw new IllegalArgumentException("arrays are not read from a PostgreSQL source");
        };
    }

    private static java.math.BigDecimal numeric(String text) {
        if (text.equals("NaN") || text.endsWith("Infinity")) {
            throw new IllegalArgumentException("numeric '" + text + "' has no exact value Tandem can hold");
        }
        return new java.math.BigDecimal(text);
    }

    private static Timestamp timestamp(String text) {
        if (text.endsWith(" BC") || text.equals("infinity") || text.equals("-infinity")) {
            throw new IllegalArgumentException("timestamp '" + text + "' is out of Tandem's range");
        }
        LocalDateTime t = LocalDateTime.parse(text, TIMESTAMP);
        return Timestamp.of(t.toInstant(ZoneOffset.UTC));
    }
}
