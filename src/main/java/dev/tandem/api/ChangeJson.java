package dev.tandem.api;

import dev.tandem.json.JsonBytes;
import dev.tandem.row.RowJson;
import dev.tandem.stream.ChangeMessage;
import dev.tandem.stream.ChangeStreamException;
import java.nio.charset.StandardCharsets;
import org.springframework.http.HttpStatus;
import tools.jackson.databind.node.ObjectNode;

/**
 * The JSON of change-stream messages, shared by Server-Sent Events and the WebSocket:
 * {@code {"timestamp": t, "updates": [[row, diff], ...]}} (upsert: {@code [[key, row or null], ...]}),
 * {@code {"progress": t}}, and the end {@code {"error": code, "detail": ..., "last_timestamp": t}}.
 */
final class ChangeJson {

    private ChangeJson() {
    }

    /**
     * The JSON of {@code m}, straight into UTF-8 bytes (a busy stream sends tens of thousands of
     * messages a second; as a tree, a string and its re-encoding each cost the interactive runtime a fifth
     * of its time). The object opens with {@code updatesPrefix} or {@code progressPrefix} (bytes ending
     * where the next field may start: {@code {} alone, or fields such as an op and an id followed by a
     * comma), then the message's own fields.
     */
    static byte[] message(ChangeMessage m, byte[] updatesPrefix, byte[] progressPrefix) {
        return switch (m) {
            case ChangeMessage.Updates u -> {
                JsonBytes out = new JsonBytes(updatesPrefix.length + 40 + 32 * u.changes().size());
                out.raw(updatesPrefix).ascii("\"timestamp\":").number(u.timestamp()).ascii(",\"updates\":[");
                boolean first = true;
                for (ChangeMessage.Change c : u.changes()) {
                    out.ascii(first ? "[" : ",[");
                    first = false;
                    switch (c) {
                        case ChangeMessage.Diff d -> {
                            RowJson.write(d.row(), out);
                            out.raw(',').number(d.diff());
                        }
                        case ChangeMessage.Upsert up -> {
                            RowJson.write(up.key(), out);
                            out.raw(',');
                            if (up.value() == null) {
                                out.ascii("null");
                            } else {
                                RowJson.write(up.value(), out);
                            }
                        }
                    }
                    out.raw(']');
                }
                yield out.ascii("]}").toByteArray();
            }
            case ChangeMessage.Progress p -> new JsonBytes(progressPrefix.length + 32).raw(progressPrefix).ascii("\"progress\":")
                    .number(p.frontier()).raw('}').toByteArray();
        };
    }

    /** The opening of a message object with {@code fields} (already JSON, comma-separated) and room for more. */
    static byte[] prefix(String fields) {
        return ("{" + fields + (fields.isEmpty() ? "" : ",")).getBytes(StandardCharsets.UTF_8);
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
}
