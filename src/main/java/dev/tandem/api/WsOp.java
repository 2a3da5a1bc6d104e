package dev.tandem.api;

import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A message of the session socket ({@code /v1/ws}), decoded by its {@code op}: its fields checked
 * (unknown ones refused, 400), nothing done yet. Each carries the client's correlation {@code id}.
 */
sealed interface WsOp {

    /** The ops, as a refusal lists them. */
    String OPS = "peek, sql, subscribe, unsubscribe, subscribe_rows or cancel_rows";

    JsonNode id();

    /** {@code {"op":"peek","id":...,"request":{...as POST /v1/peek...}}}. */
    record Peek(JsonNode id, JsonBody request) implements WsOp {
    }

    /** {@code {"op":"sql","id":...,"sql":"...","params":[...],"isolation":...}}. */
    record Sql(JsonNode id, JsonBody message) implements WsOp {
    }

    /** {@code {"op":"subscribe","index":"name"}}: the frontier and hydration events of an index. */
    record Subscribe(JsonNode id, String index) implements WsOp {
    }

    /** {@code {"op":"unsubscribe","index":"name"}}. */
    record Unsubscribe(JsonNode id, String index) implements WsOp {
    }

    /** {@code {"op":"subscribe_rows","id":...,"from":...,...}}: a change stream. */
    record SubscribeRows(JsonNode id, JsonBody message) implements WsOp {
    }

    /** {@code {"op":"cancel_rows","id":...}}. */
    record CancelRows(JsonNode id) implements WsOp {
    }

    Set<String> PEEK = Set.of("op", "id", "request");
    Set<String> SUBSCRIBE = Set.of("op", "id", "index");
    Set<String> SUBSCRIBE_ROWS = Set.of("op", "id", "from", "key", "filter", "project", "as_of", "snapshot", "envelope");
    Set<String> CANCEL_ROWS = Set.of("op", "id");
    Set<String> SQL = Set.of("op", "id", "sql", "params", "isolation", "timeZone");

    /** The {@code op} of {@code message}, a JSON object (400 when it is none or has no op). */
    static String opOf(JsonNode message) {
        if (message == null || !message.isObject()) {
            throw ApiException.badRequest("message: expected a JSON object with an 'op', got " + JsonBody.kind(message));
        }
        JsonNode op = message.get("op");
        if (op == null || !op.isString()) {
            throw ApiException.badRequest("message: 'op' is required: one of " + OPS);
        }
        return op.stringValue();
    }

    /** {@code message} as op {@code op} (400 for an unknown op or fields it does not take). */
    static WsOp decode(String op, JsonNode message) {
        JsonNode id = message.get("id");
        return switch (op) {
            case "peek" -> {
                JsonNode request = JsonBody.of(message, "message", PEEK).raw("request");
                if (request == null) {
                    throw ApiException.badRequest("message: 'request' is required for op peek");
                }
                yield new Peek(id, JsonBody.of(request, "request", ApiJson.PEEK_FIELDS));
            }
            case "sql" -> new Sql(id, JsonBody.of(message, "message", SQL));
            case "subscribe" -> new Subscribe(id, JsonBody.of(message, "message", SUBSCRIBE).requiredString("index"));
            case "unsubscribe" -> new Unsubscribe(id, JsonBody.of(message, "message", SUBSCRIBE).requiredString("index"));
            case "subscribe_rows" -> new SubscribeRows(id, JsonBody.of(message, "message", SUBSCRIBE_ROWS));
            case "cancel_rows" -> {
                JsonBody.of(message, "message", CANCEL_ROWS);
                yield new CancelRows(id);
            }
            default -> throw ApiException.badRequest("message: unknown op '" + JsonBody.abbreviate(op) + "'; expected " + OPS);
        };
    }
}
