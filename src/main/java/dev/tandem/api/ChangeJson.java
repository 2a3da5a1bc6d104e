package dev.tandem.api;

import dev.tandem.row.RowJson;
import dev.tandem.stream.ChangeMessage;
import dev.tandem.stream.ChangeStreamException;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON of change-stream messages, shared by Server-Sent Events and the WebSocket:
 * {@code {"timestamp": t, "updates": [[row, diff], ...]}} (upsert: {@code [[key, row or null], ...]}),
 * {@code {"progress": t}}, and the end {@code {"error": code, "detail": ..., "last_timestamp": t}}.
 */
final class ChangeJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ChangeJson() {
    }

    /** Writes {@code m}'s fields into {@code n}. */
    static ObjectNode message(ObjectNode n, ChangeMessage m) {
        switch (m) {
            case ChangeMessage.Updates u -> {
                n.put("timestamp", u.timestamp());
                ArrayNode updates = n.putArray("updates");
                for (ChangeMessage.Change c : u.changes()) {
                    ArrayNode pair = updates.addArray();
                    switch (c) {
                        case ChangeMessage.Diff d -> {
                            pair.add(RowJson.json(d.row()));
                            pair.add(d.diff());
                        }
                        case ChangeMessage.Upsert up -> {
                            pair.add(RowJson.json(up.key()));
                            if (up.value() == null) {
                                pair.addNull();
                            } else {
                                pair.add(RowJson.json(up.value()));
                            }
                        }
                    }
                }
            }
            case ChangeMessage.Progress p -> n.put("progress", p.frontier());
        }
        return n;
    }

    static ObjectNode message(ChangeMessage m) {
        return message(NODES.objectNode(), m);
    }

    /** Writes why a stream ended into {@code n}. */
    static ObjectNode end(ObjectNode n, Throwable error) {
        if (error instanceof ChangeStreamException e) {
            n.put("error", e.kind().code());
            n.put("detail", e.getMessage());
            if (e.lastTimestamp() != null) {
                n.put("last_timestamp", e.lastTimestamp());
            }
        } else {
            Problem p = Problem.of(error);
            n.put("error", "subscription_failed");
            n.put("detail", p.detail());
        }
        return n;
    }

    /** A subscription refused before it started, as the API's own exception (so it answers with a problem). */
    static RuntimeException refused(RuntimeException error) {
        if (!(error instanceof ChangeStreamException e)) {
            return error;
        }
        HttpStatus status = switch (e.kind()) {
            case LIMIT -> HttpStatus.TOO_MANY_REQUESTS;
            case BEFORE_SINCE -> HttpStatus.CONFLICT;
            case CLOSED -> HttpStatus.SERVICE_UNAVAILABLE;
            case INVALID -> HttpStatus.BAD_REQUEST;
            default -> HttpStatus.CONFLICT;
        };
        return new ApiException(status, e.getMessage());
    }

    /** The UTF-8 length of {@code s}, without encoding it. */
    static long utf8Length(String s) {
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
