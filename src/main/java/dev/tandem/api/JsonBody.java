package dev.tandem.api;

import dev.tandem.json.StrictJson;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request body that must be one JSON object with known fields, read strictly: bounded size,
 * {@code application/json}, valid UTF-8, no duplicate keys, nothing after the object. Field accessors
 * name the field in their errors.
 */
final class JsonBody {

    /** Field errors as the API words them: {@code "field: reason"}, a 400. */
    private static final StrictJson JSON = new StrictJson((path, reason) -> ApiException.badRequest(path + ": " + reason));

    private final ObjectNode node;
    private final String at;

    private JsonBody(ObjectNode node, String at) {
        this.node = node;
        this.at = at;
    }

    /** Reads the request's body, at most {@code maxBytes}, as an object with only {@code fields}. */
    static Mono<JsonBody> read(ServerRequest request, long maxBytes, Set<String> fields) {
        MediaType type = request.headers().contentType().orElse(null);
        if (type != null && !isJson(type)) {
            return Mono.error(new ApiException(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                    "Content-Type " + type + " is not supported; send application/json"));
        }
        return DataBufferUtils.join(request.body(BodyExtractors.toDataBuffers()), (int) Math.min(maxBytes, Integer.MAX_VALUE))
                .map(buffer -> {
                    try {
                        byte[] bytes = new byte[buffer.readableByteCount()];
                        buffer.read(bytes);
                        return bytes;
                    } finally {
                        DataBufferUtils.release(buffer);
                    }
                })
                .defaultIfEmpty(new byte[0])
                .map(bytes -> {
                    if (type == null && bytes.length > 0) {
                        // A browser sends a cross-origin POST without a preflight only with a form or text type, or none.
                        throw new ApiException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "a request body needs Content-Type: application/json");
                    }
                    return parse(bytes, fields);
                });
    }

    static boolean isJson(MediaType type) {
        return MediaType.APPLICATION_JSON.isCompatibleWith(type) || type.getSubtype().endsWith("+json");
    }

    /** Parses a whole body or message. */
    static JsonBody parse(byte[] bytes, Set<String> fields) {
        if (bytes.length == 0) {
            throw ApiException.badRequest("a JSON object body is required");
        }
        return of(StrictJson.MAPPER.readTree(bytes), "body", fields);
    }

    static JsonBody parse(String text, Set<String> fields) {
        if (text.isBlank()) {
            throw ApiException.badRequest("a JSON object is required");
        }
        return of(StrictJson.MAPPER.readTree(text), "message", fields);
    }

    /** Checks that {@code n} is an object with only {@code fields}; {@code at} names it in errors. */
    static JsonBody of(JsonNode n, String at, Set<String> fields) {
        if (n == null || !n.isObject()) {
            throw ApiException.badRequest(at + ": expected a JSON object, got " + kind(n));
        }
        for (Iterator<String> it = n.propertyNames().iterator(); it.hasNext(); ) {
            String f = it.next();
            if (!fields.contains(f)) {
                throw ApiException.badRequest(at + ": " + StrictJson.unknownField(f, fields));
            }
        }
        return new JsonBody((ObjectNode) n, at);
    }

    ObjectNode node() {
        return node;
    }

    /** The raw value of a field, or null when absent or JSON null. */
    JsonNode raw(String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v;
    }

    String requiredString(String field) {
        String s = string(field);
        if (s == null) {
            throw ApiException.badRequest(at + ": field '" + field + "' is required");
        }
        return s;
    }

    String string(String field) {
        JsonNode v = raw(field);
        if (v == null) {
            return null;
        }
        return JSON.string(v, field);
    }

    JsonNode requiredArray(String field) {
        JsonNode v = array(field);
        if (v == null) {
            throw ApiException.badRequest(at + ": field '" + field + "' is required");
        }
        return v;
    }

    JsonNode array(String field) {
        JsonNode v = raw(field);
        return v == null ? null : JSON.array(v, field, "an array");
    }

    /** An optional integer field in [0, Long.MAX_VALUE]. */
    Long nonNegativeLong(String field) {
        JsonNode v = raw(field);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw ApiException.badRequest(field + ": expected an integer between 0 and " + Long.MAX_VALUE + ", got " + kind(v));
        }
        long l = v.longValue();
        if (l < 0) {
            throw ApiException.badRequest(field + ": must not be negative, got " + l);
        }
        return l;
    }

    Boolean bool(String field) {
        JsonNode v = raw(field);
        if (v == null) {
            return null;
        }
        return JSON.bool(v, field);
    }

    /** A short description of a JSON value for error messages. */
    static String kind(JsonNode n) {
        return StrictJson.describe(n);
    }

    static String abbreviate(String s) {
        return StrictJson.abbreviate(s);
    }
}
