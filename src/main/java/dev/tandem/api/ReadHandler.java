package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.row.DatumType;
import dev.tandem.runtime.Introspection;
import dev.tandem.security.AuditLog;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Reads: {@code POST /v1/peek}, the point-lookup shortcut {@code GET /v1/indexes/{name}/rows?key=...},
 * and the introspection collections under {@code /v1/introspection}.
 */
final class ReadHandler {

    private static final Set<String> LOOKUP_PARAMS = Set.of("key", "isolation", "as_of", "limit");
    private static final Set<String> INTROSPECTION_PARAMS = Set.of("isolation", "as_of", "limit");
    private static final Set<String> INTROSPECTION_FIELDS = Set.of("key", "filter", "project", "order_by", "limit", "offset",
            "isolation", "as_of", "timeout_ms");

    /** The collection of recent audit entries (admin only, see {@link ApiAccess}). */
    static final String AUDIT = "tandem_audit";

    private final Controller controller;
    private final RequestDecoder decoder;
    private final long maxBodyBytes;
    private final AuditLog audit;

    ReadHandler(Controller controller, long maxBodyBytes, AuditLog audit) {
        this.controller = controller;
        this.decoder = new RequestDecoder(controller);
        this.maxBodyBytes = maxBodyBytes;
        this.audit = audit;
    }

    Mono<ServerResponse> peek(ServerRequest request) {
        return request.principal().map(TandemAuthentication::of).map(java.util.Optional::of).defaultIfEmpty(java.util.Optional.empty())
                .flatMap(caller -> JsonBody.read(request, maxBodyBytes, ApiJson.PEEK_FIELDS)
                        .flatMap(b -> {
                            ReadJson read = ObjectGrants.check(caller.orElse(null), ApiJson.readRequest(b));
                            return controller.read(decoder.read(read));
                        }))
                .flatMap(r -> CatalogHandler.ok(ApiJson.result(r)));
    }

    /** {@code GET /v1/introspection}: the introspection collections, their columns and freshness. */
    Mono<ServerResponse> listIntrospection(ServerRequest request) {
        ArrayNode out = JsonNodeFactory.instance.arrayNode();
        for (Introspection.Collection c : Introspection.ALL) {
            var status = controller.indexStatus(c.name());
            var node = out.addObject();
            node.put("name", c.name());
            node.put("id", c.id());
            node.put("description", c.description());
            var cols = node.putArray("columns");
            c.schema().columns().forEach(col -> cols.addObject().put("name", col.name()).put("type", col.type().jsonName()));
            ApiJson.frontier(node, "write_frontier", status.writeFrontier());
            ApiJson.frontier(node, "since", status.since());
            node.put("hydrated", status.hydrated());
        }
        return CatalogHandler.ok(out);
    }

    /** {@code GET /v1/introspection/{name}?isolation&as_of&limit}: reads one collection (serializable by default). */
    Mono<ServerResponse> readIntrospection(ServerRequest request) {
        for (String p : request.queryParams().keySet()) {
            if (!INTROSPECTION_PARAMS.contains(p)) {
                throw ApiException.badRequest("unknown query parameter '" + JsonBody.abbreviate(p) + "'; expected "
                        + List.copyOf(new java.util.TreeSet<>(INTROSPECTION_PARAMS)));
            }
        }
        String name = request.pathVariable("name");
        if (name.equals(AUDIT)) {
            return auditEntries(longParam(request, "limit"));
        }
        ReadJson read = new ReadJson(name, null, null, null, null, null, longParam(request, "limit"), null,
                request.queryParam("isolation").orElse(null), longParam(request, "as_of"), null);
        return Mono.defer(() -> controller.readIntrospection(name, decoder.readIntrospection(name, read))).flatMap(r -> CatalogHandler.ok(ApiJson.result(r)));
    }

    /** {@code POST /v1/introspection/{name}}: reads one collection with the peek body's options (no from/plan). */
    Mono<ServerResponse> peekIntrospection(ServerRequest request) {
        String name = request.pathVariable("name");
        return JsonBody.read(request, maxBodyBytes, INTROSPECTION_FIELDS)
                .flatMap(b -> controller.readIntrospection(name, decoder.readIntrospection(name, ApiJson.readRequest(b))))
                .flatMap(r -> CatalogHandler.ok(ApiJson.result(r)));
    }

    /**
     * {@code GET /v1/introspection/tandem_audit?limit=N}: the most recent audit entries, newest last, kept
     * in memory (the full trail is the {@code tandem.audit} log).
     */
    private Mono<ServerResponse> auditEntries(Long limit) {
        List<AuditLog.Entry> entries = audit.recent();
        int from = limit == null ? 0 : (int) Math.max(0, entries.size() - Math.min(limit, entries.size()));
        var out = JsonNodeFactory.instance.objectNode();
        var columns = out.putArray("columns");
        List.of("time", "principal", "address", "action", "target", "outcome").forEach(columns::add);
        ArrayNode rows = out.putArray("rows");
        for (AuditLog.Entry e : entries.subList(from, entries.size())) {
            rows.addArray().add(e.time().toString()).add(e.principal()).add(e.address()).add(e.action()).add(e.target()).add(e.outcome());
        }
        return CatalogHandler.ok(out);
    }

    Mono<ServerResponse> lookup(ServerRequest request) {
        String name = request.pathVariable("name");
        Map<String, List<String>> params = request.queryParams();
        for (String p : params.keySet()) {
            if (!LOOKUP_PARAMS.contains(p)) {
                throw ApiException.badRequest("unknown query parameter '" + JsonBody.abbreviate(p) + "'; expected " + List.copyOf(new java.util.TreeSet<>(LOOKUP_PARAMS)));
            }
        }
        CatalogEntry e = controller.entry(name);
        if (!(e instanceof CatalogEntry.Index index)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND, "'" + name + "' is a " + CatalogHandler.kindName(e.getClass()) + ", not an index");
        }
        JsonNode keys = null;
        List<String> values = params.getOrDefault("key", List.of());
        if (!values.isEmpty()) {
            if (index.key().size() != 1) {
                throw new ControllerException(ControllerException.Reason.INVALID, "index '" + name + "' has a " + index.key().size()
                        + "-column key " + index.key() + "; ?key= looks up single-column keys, use POST /v1/peek with \"key\": [[...]]");
            }
            DatumType type = index.schema().type(index.schema().indexOf(index.key().get(0)));
            ArrayNode rows = JsonNodeFactory.instance.arrayNode();
            for (String v : values) {
                rows.addArray().add(keyValue(v, type, index.key().get(0)));
            }
            keys = rows;
        }
        ReadJson read = new ReadJson(name, null, keys, null, null, null, longParam(request, "limit"), null,
                request.queryParam("isolation").orElse(null), longParam(request, "as_of"), null);
        return controller.read(decoder.read(read)).flatMap(r -> CatalogHandler.ok(ApiJson.result(r)));
    }

    /** A query-string key value as a JSON datum of the key column's type. */
    static JsonNode keyValue(String v, DatumType type, String column) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        String bad = "key: '" + JsonBody.abbreviate(v) + "' is not a valid " + type.jsonName() + " for key column '" + column + "'";
        return switch (type) {
            case INT64 -> {
                try {
                    yield f.numberNode(Long.parseLong(v));
                } catch (NumberFormatException x) {
                    throw new ControllerException(ControllerException.Reason.INVALID, bad);
                }
            }
            case FLOAT64 -> {
                try {
                    yield switch (v) {
                        case "NaN", "Infinity", "-Infinity" -> f.stringNode(v);
                        default -> f.numberNode(Double.parseDouble(v));
                    };
                } catch (NumberFormatException x) {
                    throw new ControllerException(ControllerException.Reason.INVALID, bad);
                }
            }
            case BOOL -> switch (v) {
                case "true" -> f.booleanNode(true);
                case "false" -> f.booleanNode(false);
                default -> throw new ControllerException(ControllerException.Reason.INVALID, bad + " (use true or false)");
            };
            case STRING, TIMESTAMP, NUMERIC, DATE, TIMESTAMPTZ, UUID, INTERVAL, JSONB, BYTEA, TIME -> f.stringNode(v);
            case BOOL_ARRAY, INT64_ARRAY, FLOAT64_ARRAY, STRING_ARRAY, TIMESTAMP_ARRAY, NUMERIC_ARRAY, DATE_ARRAY, TIMESTAMPTZ_ARRAY,
                    UUID_ARRAY -> throw new ControllerException(ControllerException.Reason.INVALID, bad + " (an array key is read in a JSON body)");
        };
    }

    static Long longParam(ServerRequest request, String name) {
        String v = request.queryParam(name).orElse(null);
        if (v == null) {
            return null;
        }
        try {
            long l = Long.parseLong(v);
            if (l < 0) {
                throw ApiException.badRequest(name + ": must not be negative, got " + l);
            }
            return l;
        } catch (NumberFormatException x) {
            throw ApiException.badRequest(name + ": expected an integer, got '" + JsonBody.abbreviate(v) + "'");
        }
    }
}
