package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.ControllerEvent;
import dev.tandem.controller.IndexStatus;
import dev.tandem.controller.ReadResult;
import dev.tandem.controller.TableStatus;
import dev.tandem.plan.PlanJson;
import dev.tandem.row.Column;
import dev.tandem.row.Row;
import dev.tandem.row.RowJson;
import dev.tandem.row.Schema;
import dev.tandem.time.Frontier;
import java.util.Set;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The JSON forms of the API's resources, and the peek request read from JSON. */
final class ApiJson {

    static final Set<String> PEEK_FIELDS = Set.of("from", "plan", "key", "filter", "project", "order_by", "limit", "offset",
            "isolation", "as_of", "timeout_ms");

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ApiJson() {
    }

    static ObjectNode table(CatalogEntry.Table t) {
        ObjectNode n = NODES.objectNode();
        n.put("id", t.id());
        n.put("name", t.name());
        n.set("columns", columns(t.schema()));
        t.primaryKey().ifPresent(k -> {
            ArrayNode key = n.putArray("primary_key");
            k.columns().forEach(key::add);
        });
        if (t.keys().stream().anyMatch(k -> !k.primary())) {
            ArrayNode unique = n.putArray("unique");
            for (CatalogEntry.Key k : t.keys()) {
                if (!k.primary()) {
                    ObjectNode u = unique.addObject();
                    u.put("name", k.name());
                    ArrayNode cols = u.putArray("columns");
                    k.columns().forEach(cols::add);
                }
            }
        }
        return n;
    }

    /** A table with where it is in time and its size: {@code write_frontier}, {@code since} and {@code records}. */
    static ObjectNode table(TableStatus s) {
        ObjectNode n = table(s.table());
        frontier(n, "write_frontier", s.writeFrontier());
        frontier(n, "since", s.since());
        n.put("records", s.records());
        return n;
    }

    static ObjectNode view(CatalogEntry.View v) {
        ObjectNode n = NODES.objectNode();
        n.put("id", v.id());
        n.put("name", v.name());
        n.set("plan", PlanJson.write(v.plan()));
        n.set("columns", columns(v.schema()));
        return n;
    }

    static ObjectNode index(IndexStatus s) {
        ObjectNode n = NODES.objectNode();
        n.put("id", s.id());
        n.put("name", s.name());
        n.put("on", s.on());
        ArrayNode key = n.putArray("key");
        s.key().forEach(key::add);
        n.put("state", s.state());
        if (s.error() != null) {
            n.put("error", s.error());
        }
        n.put("hydrated", s.hydrated());
        if (s.dataError() != null) {
            n.put("data_error", s.dataError());
        }
        frontier(n, "write_frontier", s.writeFrontier());
        frontier(n, "since", s.since());
        n.put("records", s.records());
        n.put("as_of", s.asOf());
        n.put("compaction_window_ms", s.windowMillis());
        return n;
    }

    static ArrayNode columns(Schema schema) {
        ArrayNode a = NODES.arrayNode();
        for (Column c : schema.columns()) {
            ObjectNode col = a.addObject();
            col.put("name", c.name());
            col.put("type", c.type().jsonName());
            col.put("nullable", c.nullable());
        }
        return a;
    }

    /** A frontier as its time, or null for the empty (closed) frontier. */
    static void frontier(ObjectNode n, String field, Frontier f) {
        if (f == null || f.isEmpty()) {
            n.putNull(field);
        } else {
            n.put(field, f.time());
        }
    }

    static ObjectNode result(ReadResult r) {
        ObjectNode n = NODES.objectNode();
        ArrayNode cols = n.putArray("columns");
        r.columns().forEach(cols::add);
        ArrayNode rows = n.putArray("rows");
        for (Row row : r.rows()) {
            rows.add(RowJson.json(row));
        }
        n.put("as_of", r.asOf());
        frontier(n, "upper", r.upper());
        frontier(n, "since", r.since());
        n.put("lag_ms", r.lagMs());
        n.put("hydrated", r.hydrated());
        n.put("path", r.path());
        n.put("runtime", r.runtime());
        return n;
    }

    static ObjectNode event(ControllerEvent e) {
        ObjectNode n = NODES.objectNode();
        n.put("op", "event");
        n.put("kind", e.kind());
        n.put("index", e.index());
        n.put("id", e.id());
        if (e.writeFrontier() != null) {
            frontier(n, "write_frontier", e.writeFrontier());
        }
        n.put("hydrated", e.hydrated());
        if (e.detail() != null) {
            n.put("detail", e.detail());
        }
        return n;
    }

    /** The read a peek body asks for; field types are checked here, their meaning by {@link RequestDecoder}. */
    static ReadJson readRequest(JsonBody b) {
        return new ReadJson(b.string("from"), b.raw("plan"), b.raw("key"), b.raw("filter"), b.raw("project"), b.raw("order_by"),
                b.nonNegativeLong("limit"), b.nonNegativeLong("offset"), b.string("isolation"), b.nonNegativeLong("as_of"),
                positiveTimeout(b));
    }

    /** Longest wait a read may ask for: one hour. */
    static final long MAX_TIMEOUT_MS = 3_600_000;

    private static Long positiveTimeout(JsonBody b) {
        Long t = b.nonNegativeLong("timeout_ms");
        if (t != null && (t == 0 || t > MAX_TIMEOUT_MS)) {
            throw ApiException.badRequest("timeout_ms: expected 1 to " + MAX_TIMEOUT_MS + " ms, got " + t);
        }
        return t;
    }
}
