package dev.tandem.json;

import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The one strict JSON reader behind every public JSON contract (the compute protocol, plans, dataflows,
 * expressions, rows and the REST/WebSocket API), so that they refuse the same things the same way.
 *
 * <p>Strictness comes in two layers. Jackson's own, configured once on {@link #MAPPER}: a duplicate key
 * or anything after the top-level value is malformed JSON. Field-level, here: each codec walks a JSON
 * tree (not data binding, because the error messages — the JSON path of the offending value and what
 * was expected there — are part of each contract), and the checks it repeats — an object with only
 * known fields, a required or optional field, a string, a boolean, a non-negative integer in range —
 * are the methods of an instance. An instance carries the codec's own exception (its {@link Errors}) and
 * its way of describing a wrong value in a message, so every codec keeps its error type and wording.
 *
 * <p>Paths are written as {@code a.b[2].c}; the root is the empty path (a member of it is just its
 * name) or a codec's own root such as {@code $}.
 */
public final class StrictJson {

    /** Jackson configured to refuse duplicate keys and trailing tokens; share it instead of building another. */
    public static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    /** How a codec reports a bad value: its own exception for a JSON path and a reason. */
    @FunctionalInterface
    public interface Errors {
        RuntimeException at(String path, String reason);
    }

    private final Errors errors;
    private final Function<JsonNode, String> describer;

    /** A reader reporting through {@code errors}, describing values as {@link #describe(JsonNode)} does. */
    public StrictJson(Errors errors) {
        this(errors, StrictJson::describe);
    }

    /** A reader reporting through {@code errors}, describing wrong values with {@code describer}. */
    public StrictJson(Errors errors, Function<JsonNode, String> describer) {
        this.errors = errors;
        this.describer = describer;
    }

    /** The codec's exception for {@code path} and {@code reason}, to throw. */
    public RuntimeException error(String path, String reason) {
        return errors.at(path, reason);
    }

    /**
     * Parses a whole JSON text with {@link #MAPPER}; malformed JSON is this codec's error at {@code path}
     * naming the line and column.
     */
    public JsonNode tree(String json, String path) {
        try {
            return MAPPER.readTree(json);
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String message = e.getOriginalMessage();
            int nl = message.indexOf('\n');
            throw error(path, "malformed JSON" + where + ": " + (nl < 0 ? message : message.substring(0, nl)));
        }
    }

    /** {@code node} if it is an object, else an error "expected {@code what}, got ...". */
    public JsonNode object(JsonNode node, String path, String what) {
        if (node == null || !node.isObject()) {
            throw error(path, "expected " + what + ", got " + describer.apply(node));
        }
        return node;
    }

    /** {@code node} if it is an array, else an error "expected {@code what}, got ...". */
    public JsonNode array(JsonNode node, String path, String what) {
        if (node == null || !node.isArray()) {
            throw error(path, "expected " + what + ", got " + describer.apply(node));
        }
        return node;
    }

    /** Refuses a field of the object {@code node} that is not in {@code allowed}. */
    public void onlyFields(JsonNode node, String path, Set<String> allowed) {
        for (String name : node.propertyNames()) {
            if (!allowed.contains(name)) {
                throw error(path, unknownField(name, allowed));
            }
        }
    }

    /** The one wording of an unknown field, for every strict codec: the name (abbreviated) and the fields allowed. */
    public static String unknownField(String name, Set<String> allowed) {
        return "unknown field '" + abbreviate(name) + "'; expected " + String.join(", ", new TreeSet<>(allowed));
    }

    /** An object at {@code path} with only the {@code allowed} fields, to read its fields from. */
    public Obj fields(JsonNode node, String path, String... allowed) {
        object(node, path, "an object");
        onlyFields(node, path, Set.of(allowed));
        return new Obj(this, node, path);
    }

    /** The value of {@code field} in the object {@code node} at {@code path}; an error when it is absent. */
    public JsonNode required(JsonNode node, String field, String path) {
        JsonNode v = node.get(field);
        if (v == null) {
            throw error(path, "missing field \"" + field + "\"");
        }
        return v;
    }

    /** The value of {@code field}, or null when it is absent or JSON null. */
    public static JsonNode optional(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v;
    }

    public String string(JsonNode node, String path) {
        if (node == null || !node.isString()) {
            throw error(path, "expected a string, got " + describer.apply(node));
        }
        return node.stringValue();
    }

    public boolean bool(JsonNode node, String path) {
        if (node == null || !node.isBoolean()) {
            throw error(path, "expected true or false, got " + describer.apply(node));
        }
        return node.booleanValue();
    }

    /** An integer in [0, Long.MAX_VALUE]. */
    public long nonNegativeLong(JsonNode node, String path) {
        if (node == null || !node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 0) {
            throw error(path, "expected a non-negative integer, got " + describer.apply(node));
        }
        return node.longValue();
    }

    /** An integer in [0, Integer.MAX_VALUE]. */
    public int nonNegativeInt(JsonNode node, String path) {
        if (node == null || !node.isIntegralNumber() || !node.canConvertToInt() || node.intValue() < 0) {
            throw error(path, "expected a non-negative integer, got " + describer.apply(node));
        }
        return node.intValue();
    }

    /** A wrong value for a message: its JSON type and its text cut at 40 characters, or "nothing". */
    public static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        return node.getNodeType().name().toLowerCase() + " " + abbreviate(node.toString());
    }

    /** {@code s} cut at 40 characters, so that a message never echoes a large input. */
    public static String abbreviate(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    /** The path of a member of the value at {@code path}: {@code path.member}, or {@code member} at the empty root. */
    public static String child(String path, String member) {
        return path == null || path.isEmpty() ? member : path + "." + member;
    }

    /** The path of element {@code i} of the array at {@code path}: {@code path[i]}. */
    public static String index(String path, int i) {
        return (path == null ? "" : path) + "[" + i + "]";
    }

    /** An object whose fields were checked against the allowed ones; field readers name {@code path.field} in errors. */
    public record Obj(StrictJson json, JsonNode node, String path) {

        public String at(String field) {
            return child(path, field);
        }

        public JsonNode required(String field) {
            return json.required(node, field, path);
        }

        /** The field's value, or null when it is absent or JSON null. */
        public JsonNode optional(String field) {
            return StrictJson.optional(node, field);
        }

        public String string(String field) {
            return json.string(required(field), at(field));
        }

        public String optionalString(String field) {
            JsonNode v = optional(field);
            return v == null ? null : json.string(v, at(field));
        }

        public long nonNegativeLong(String field) {
            return json.nonNegativeLong(required(field), at(field));
        }

        /** The field as a non-negative long, or null when it is absent or JSON null. */
        public Long optionalNonNegativeLong(String field) {
            JsonNode v = optional(field);
            return v == null ? null : json.nonNegativeLong(v, at(field));
        }
    }
}
