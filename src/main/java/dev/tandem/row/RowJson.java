package dev.tandem.row;

import dev.tandem.json.JsonBytes;
import dev.tandem.json.StrictJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The JSON mapping of datums: numbers, strings, booleans and null; int64 outside ±2^53 is written as a
 * string (and read from one), float64 NaN and infinities as the strings {@code "NaN"},
 * {@code "Infinity"}, {@code "-Infinity"}, timestamps (with or without time zone) as ISO-8601 strings in UTC, dates as {@code "2024-01-02"}, uuids as lower-case hyphenated strings, intervals as ISO-8601 strings of their three parts ({@code "P14M3DT5.5S"}), numerics as strings of their exact digits ({@code "1.50"}; read
 * from a string or an integer), arrays as JSON arrays of their elements' values.
 */
public final class RowJson {

    private static final long MAX_SAFE = 1L << 53;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private RowJson() {
    }

    /** Reads one datum of {@code type}; throws {@link IllegalArgumentException} with a precise message. */
    public static Object datum(JsonNode node, DatumType type) {
        if (node == null || node.isNull()) {
            return null;
        }
        switch (type) {
            case BOOL -> {
                if (node.isBoolean()) return node.booleanValue();
            }
            case INT64 -> {
                if (node.isIntegralNumber() && node.canConvertToLong()) return node.longValue();
                if (node.isString()) {
                    try {
                        return Long.parseLong(node.stringValue());
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("expected int64, got string '" + node.stringValue() + "'");
                    }
                }
            }
            case FLOAT64 -> {
                if (node.isNumber()) {
                    double d = node.doubleValue();
                    if (Double.isInfinite(d) || Double.isNaN(d)) {
                        throw new IllegalArgumentException("a number beyond the float64 range (about ±1.8e308);"
                                + " write \"Infinity\" or \"-Infinity\" for an infinity");
                    }
                    return d;
                }
                if (node.isString()) {
                    switch (node.stringValue()) {
                        case "NaN": return Double.NaN;
                        case "Infinity": return Double.POSITIVE_INFINITY;
                        case "-Infinity": return Double.NEGATIVE_INFINITY;
                        default: break;
                    }
                }
            }
            case STRING -> {
                if (node.isString()) return wellFormed(node.stringValue());
            }
            case TIMESTAMP -> {
                if (node.isString()) return Timestamp.parse(node.stringValue());
            }
            case DATE -> {
                if (node.isString()) {
                    try {
                        java.time.LocalDate d = java.time.LocalDate.parse(node.stringValue());
                        if (type.accepts(d)) return d;
                    } catch (java.time.DateTimeException e) {
                        // falls through to the error
                    }
                    throw new IllegalArgumentException("expected a date of years 1 to 9999 as \"yyyy-mm-dd\", got string '" + node.stringValue() + "'");
                }
            }
            case TIMESTAMPTZ -> {
                if (node.isString()) return TimestampTz.parse(node.stringValue());
            }
            case INTERVAL -> {
                if (node.isString()) return Interval.parse(node.stringValue());
            }
            case TIME -> {
                if (node.isString()) return TimeOfDay.parse(node.stringValue());
            }
            case BYTEA -> {
                if (node.isString()) {
                    String t = node.stringValue();
                    if (t.startsWith("\\x")) {
                        try {
                            return Bytea.parse(t);
                        } catch (IllegalArgumentException e) {
                            // falls through to the error
                        }
                    }
                    throw new IllegalArgumentException("expected a bytea as a string of PostgreSQL's hex form \"\\x0a0b\", got string '" + t + "'");
                }
            }
            case JSONB -> {
                if (node.isString()) {
                    try {
                        return Jsonb.parse(node.stringValue());
                    } catch (Jsonb.SyntaxError e) {
                        throw new IllegalArgumentException("expected a jsonb as a JSON string of its text, got string '" + node.stringValue() + "' ("
                                + e.getMessage() + ")");
                    }
                }
            }
            case UUID -> {
                if (node.isString()) {
                    try {
                        return java.util.UUID.fromString(node.stringValue());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("expected a uuid as \"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx\", got string '"
                                + node.stringValue() + "'");
                    }
                }
            }
            case NUMERIC -> {
                try {
                    if (node.isNumber() && !node.isIntegralNumber() && !node.isBigDecimal()) {
                        // a JSON reader's double has lost the digits and the scale as written
                        throw new IllegalArgumentException("a numeric is a JSON string of its digits (\"2.50\") or an integer, got number "
                                + node);
                    }
                    java.math.BigDecimal d = node.isIntegralNumber() ? new java.math.BigDecimal(node.bigIntegerValue())
                            : node.isNumber() ? node.decimalValue() : node.isString() ? new java.math.BigDecimal(node.stringValue().trim()) : null;
                    if (d != null) return d.scale() < 0 ? d.setScale(0) : d;
                } catch (NumberFormatException | ArithmeticException e) {
                    throw new IllegalArgumentException("expected numeric, got string '" + node.stringValue() + "'");
                }
            }
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> {
                if (node.isArray()) {
                    java.util.List<Object> elements = new java.util.ArrayList<>(node.size());
                    for (int i = 0; i < node.size(); i++) {
                        try {
                            elements.add(datum(node.get(i), type.element()));
                        } catch (IllegalArgumentException e) {
                            throw new IllegalArgumentException("element " + i + ": " + e.getMessage());
                        }
                    }
                    return new DatumArray(type.element(), elements);
                }
            }
        }
        throw new IllegalArgumentException("expected " + type.jsonName() + ", got " + StrictJson.describe(node));
    }

    /** The string, if it is well-formed UTF-16 (no lone surrogate, which UTF-8 cannot encode). */
    private static String wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException(String.format("string has a lone surrogate \\u%04x at character %d;"
                        + " strings must be valid Unicode", (int) c, i));
            }
        }
        return s;
    }

    /** Writes one datum. */
    public static JsonNode json(Object v) {
        if (v == null) return NODES.nullNode();
        if (v instanceof Boolean b) return NODES.booleanNode(b);
        if (v instanceof Long l) return (l > MAX_SAFE || l < -MAX_SAFE) ? NODES.stringNode(Long.toString(l)) : NODES.numberNode(l);
        if (v instanceof Double d) {
            if (d.isNaN()) return NODES.stringNode("NaN");
            if (d.isInfinite()) return NODES.stringNode(d > 0 ? "Infinity" : "-Infinity");
            return NODES.numberNode(d);
        }
        if (v instanceof String s) return NODES.stringNode(s);
        if (v instanceof Timestamp t) return NODES.stringNode(t.toString());
        if (v instanceof java.math.BigDecimal d) return NODES.stringNode(d.toPlainString());
        if (v instanceof java.time.LocalDate d) return NODES.stringNode(d.toString());
        if (v instanceof TimestampTz t) return NODES.stringNode(t.toString());
        if (v instanceof java.util.UUID u) return NODES.stringNode(u.toString());
        if (v instanceof Interval i) return NODES.stringNode(i.toString());
        if (v instanceof Jsonb j) return NODES.stringNode(j.text());
        if (v instanceof Bytea b) return NODES.stringNode(b.hex());
        if (v instanceof TimeOfDay t) return NODES.stringNode(t.toString());
        if (v instanceof DatumArray a) {
            ArrayNode out = NODES.arrayNode();
            for (Object e : a.elements()) {
                out.add(json(e));
            }
            return out;
        }
        throw new IllegalArgumentException("not a datum: " + v.getClass().getName());
    }

    /** Reads a JSON array as a row of {@code schema}, checking arity, types and nullability. */
    public static Row row(JsonNode array, Schema schema) {
        if (array == null || !array.isArray()) {
            throw new IllegalArgumentException("a row must be a JSON array of " + schema.arity() + " values");
        }
        if (array.size() != schema.arity()) {
            throw new IllegalArgumentException("expected " + schema.arity() + " values, got " + array.size());
        }
        RowPacker p = new RowPacker();
        for (int i = 0; i < schema.arity(); i++) {
            Column c = schema.column(i);
            Object v;
            try {
                v = datum(array.get(i), c.type());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("column '" + c.name() + "': " + e.getMessage());
            }
            if (v == null && !c.nullable()) {
                throw new IllegalArgumentException("column '" + c.name() + "' is not nullable");
            }
            p.push(c.type(), v);
        }
        return p.finish();
    }

    /** Writes a row as a JSON array. */
    public static ArrayNode json(Row row) {
        ArrayNode out = NODES.arrayNode();
        for (Object v : row.unpack()) {
            out.add(json(v));
        }
        return out;
    }

    /** Writes a row as a JSON array straight into bytes, as {@link #json(Row)} writes it into a tree. */
    public static void write(Row row, JsonBytes out) {
        out.raw('[');
        Object[] values = row.unpack();
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.raw(',');
            }
            write(values[i], out);
        }
        out.raw(']');
    }

    /** Writes one datum straight into bytes, as {@link #json(Object)} writes it into a tree. */
    public static void write(Object v, JsonBytes out) {
        switch (v) {
            case null -> out.ascii("null");
            case Boolean b -> out.ascii(b ? "true" : "false");
            case Long l -> {
                if (l > MAX_SAFE || l < -MAX_SAFE) {
                    out.raw('"').number(l).raw('"');
                } else {
                    out.number(l);
                }
            }
            case Double d -> {
                if (d.isNaN() || d.isInfinite()) {
                    out.ascii(d.isNaN() ? "\"NaN\"" : d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
                } else {
                    out.number(d);
                }
            }
            case String s -> out.string(s);
            case Timestamp t -> out.string(t.toString());
            case java.math.BigDecimal d -> out.string(d.toPlainString());
            case java.time.LocalDate d -> out.string(d.toString());
            case TimestampTz t -> out.string(t.toString());
            case java.util.UUID u -> out.string(u.toString());
            case Interval i -> out.string(i.toString());
            case Jsonb j -> out.string(j.text());
            case Bytea b -> out.string(b.hex());
            case TimeOfDay t -> out.string(t.toString());
            case DatumArray a -> {
                out.raw('[');
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) {
                        out.raw(',');
                    }
                    write(a.get(i), out);
                }
                out.raw(']');
            }
            default -> throw new IllegalArgumentException("not a datum: " + v.getClass().getName());
        }
    }

}
