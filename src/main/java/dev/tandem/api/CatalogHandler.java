package dev.tandem.api;

import dev.tandem.controller.CatalogEntry;
import dev.tandem.controller.Controller;
import dev.tandem.controller.ControllerException;
import dev.tandem.row.Column;
import dev.tandem.row.DatumType;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** Tables, writes, views and indexes: {@code /v1/tables}, {@code /v1/views}, {@code /v1/indexes}. */
final class CatalogHandler {

    private static final Set<String> TABLE_FIELDS = Set.of("name", "columns", "primary_key", "unique");
    private static final Set<String> COLUMN_FIELDS = Set.of("name", "type", "nullable");
    private static final Set<String> WRITE_FIELDS = Set.of("insert", "delete");
    private static final Set<String> VIEW_FIELDS = Set.of("name", "plan", "columns");
    private static final Set<String> INDEX_FIELDS = Set.of("name", "on", "key", "compaction_window_ms");

    private final Controller controller;
    private final RequestDecoder decoder;
    private final long maxBodyBytes;
    private final Scheduler blocking;

    CatalogHandler(Controller controller, long maxBodyBytes, Scheduler blocking) {
        this.controller = controller;
        this.decoder = new RequestDecoder(controller);
        this.maxBodyBytes = maxBodyBytes;
        this.blocking = blocking;
    }

    /** Runs a catalog call, which blocks on durable storage, off the event loop. */
    private <T> Mono<T> offLoop(Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(blocking);
    }

    private Mono<JsonBody> body(ServerRequest request, Set<String> fields) {
        return JsonBody.read(request, maxBodyBytes, fields);
    }

    static Mono<ServerResponse> ok(JsonNode json) {
        return ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(json.toString());
    }

    static Mono<ServerResponse> created(ServerRequest request, String name, JsonNode json) {
        URI location = request.uriBuilder().path("/{name}").build(name);
        return ServerResponse.created(location).contentType(MediaType.APPLICATION_JSON).bodyValue(json.toString());
    }

    // ------------------------------------------------------------------ tables

    Mono<ServerResponse> createTable(ServerRequest request) {
        return body(request, TABLE_FIELDS).flatMap(b -> {
            String name = b.requiredString("name");
            List<Column> columns = columns(b.requiredArray("columns"));
            List<CatalogEntry.Key> keys = new ArrayList<>();
            JsonNode primary = b.array("primary_key");
            if (primary != null) {
                keys.add(new CatalogEntry.Key(null, names(primary, "primary_key"), true));
            }
            JsonNode unique = b.array("unique");
            if (unique != null) {
                for (int i = 0; i < unique.size(); i++) {
                    String at = "unique[" + i + "]";
                    if (!unique.get(i).isArray()) {
                        throw ApiException.badRequest(at + ": expected an array of column names, got " + JsonBody.kind(unique.get(i)));
                    }
                    keys.add(new CatalogEntry.Key(null, names(unique.get(i), at), false));
                }
            }
            return offLoop(() -> controller.createTable(name, columns, keys));
        }).flatMap(t -> created(request, t.name(), ApiJson.table(t)));
    }

    /** A key's column names. */
    private static List<String> names(JsonNode array, String at) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            if (!array.get(i).isString()) {
                throw ApiException.badRequest(at + "[" + i + "]: expected a column name, got " + JsonBody.kind(array.get(i)));
            }
            out.add(array.get(i).asString());
        }
        return out;
    }

    static List<Column> columns(JsonNode array) {
        List<Column> out = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            String at = "columns[" + i + "]";
            JsonBody c = JsonBody.of(array.get(i), at, COLUMN_FIELDS);
            String name = c.requiredString("name");
            String type = c.requiredString("type");
            Boolean nullable = c.bool("nullable");
            DatumType t;
            try {
                t = DatumType.fromJson(type);
            } catch (IllegalArgumentException e) {
                throw ApiException.badRequest(at + ".type: " + e.getMessage());
            }
            out.add(new Column(name, t, nullable == null || nullable));
        }
        return out;
    }

    Mono<ServerResponse> listTables(ServerRequest request) {
        return list(request, CatalogEntry.Table.class, t -> ApiJson.table(controller.tableStatus(t)));
    }

    /** The catalog entries of one kind the caller may see (those granted to it), each written by {@code json}. */
    private <T extends CatalogEntry> Mono<ServerResponse> list(ServerRequest request, Class<T> kind, java.util.function.Function<T, JsonNode> json) {
        return request.principal().map(p -> java.util.Optional.ofNullable(TandemAuthentication.of(p)))
                .defaultIfEmpty(java.util.Optional.empty())
                .flatMap(caller -> list(kind, json, caller.orElse(null)));
    }

    private <T extends CatalogEntry> Mono<ServerResponse> list(Class<T> kind, java.util.function.Function<T, JsonNode> json,
            dev.tandem.security.AccessPrincipal caller) {
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        for (CatalogEntry e : controller.catalog()) {
            if (kind.isInstance(e) && (caller == null || caller.mayAccess(e.name()))) {
                try {
                    a.add(json.apply(kind.cast(e)));
                } catch (ControllerException gone) {
                    if (gone.kind() != ControllerException.Kind.NOT_FOUND) {
                        throw gone;
                    } // dropped since the catalog was read: not listed, as a moment later
                }
            }
        }
        return ok(a);
    }

    Mono<ServerResponse> getTable(ServerRequest request) {
        return ok(ApiJson.table(controller.tableStatus(require(request.pathVariable("name"), CatalogEntry.Table.class))));
    }

    Mono<ServerResponse> dropTable(ServerRequest request) {
        return drop(request, CatalogEntry.Table.class);
    }

    Mono<ServerResponse> writeRows(ServerRequest request) {
        String table = request.pathVariable("name");
        return body(request, WRITE_FIELDS).flatMap(b -> {
            JsonNode insert = b.array("insert");
            JsonNode delete = b.array("delete");
            return Mono.defer(() -> controller.write(table, decoder.writeRows(table, insert, delete)));
        }).flatMap(ts -> {
            ObjectNode n = JsonNodeFactory.instance.objectNode();
            n.put("timestamp", ts);
            return ok(n);
        });
    }

    // ------------------------------------------------------------------ views

    Mono<ServerResponse> createView(ServerRequest request) {
        return body(request, VIEW_FIELDS).flatMap(b -> {
            String name = b.requiredString("name");
            JsonNode plan = b.raw("plan");
            if (plan == null) {
                throw ApiException.badRequest("body: field 'plan' is required");
            }
            JsonNode cols = b.array("columns");
            List<String> names = null;
            if (cols != null) {
                names = new ArrayList<>();
                for (int i = 0; i < cols.size(); i++) {
                    if (!cols.get(i).isString()) {
                        throw ApiException.badRequest("columns[" + i + "]: expected a column name, got " + JsonBody.kind(cols.get(i)));
                    }
                    names.add(cols.get(i).stringValue());
                }
            }
            List<String> columnNames = names;
            return offLoop(() -> controller.createView(name, RequestDecoder.plan(plan, "plan"), columnNames));
        }).flatMap(v -> created(request, v.name(), ApiJson.view(v)));
    }

    Mono<ServerResponse> listViews(ServerRequest request) {
        return list(request, CatalogEntry.View.class, ApiJson::view);
    }

    Mono<ServerResponse> getView(ServerRequest request) {
        return ok(ApiJson.view(require(request.pathVariable("name"), CatalogEntry.View.class)));
    }

    Mono<ServerResponse> dropView(ServerRequest request) {
        return drop(request, CatalogEntry.View.class);
    }

    // ------------------------------------------------------------------ indexes

    Mono<ServerResponse> createIndex(ServerRequest request) {
        return body(request, INDEX_FIELDS).flatMap(b -> {
            String name = b.requiredString("name");
            String on = b.requiredString("on");
            JsonNode keyJson = b.requiredArray("key");
            List<String> key = new ArrayList<>();
            for (int i = 0; i < keyJson.size(); i++) {
                JsonNode k = keyJson.get(i);
                if (k.isString()) {
                    key.add(k.stringValue());
                } else if (k.isIntegralNumber() && k.canConvertToInt() && k.intValue() >= 0) {
                    key.add(Integer.toString(k.intValue()));
                } else {
                    throw ApiException.badRequest("key[" + i + "]: expected a column name or position, got " + JsonBody.kind(k));
                }
            }
            Long window = b.nonNegativeLong("compaction_window_ms");
            return offLoop(() -> {
                controller.createIndex(name, on, key, window);
                return controller.indexStatus(name);
            });
        }).flatMap(s -> created(request, s.name(), ApiJson.index(s)));
    }

    Mono<ServerResponse> listIndexes(ServerRequest request) {
        return list(request, CatalogEntry.Index.class, i -> ApiJson.index(controller.indexStatus(i.name())));
    }

    Mono<ServerResponse> getIndex(ServerRequest request) {
        String name = request.pathVariable("name");
        require(name, CatalogEntry.Index.class);
        return ok(ApiJson.index(controller.indexStatus(name)));
    }

    Mono<ServerResponse> dropIndex(ServerRequest request) {
        return drop(request, CatalogEntry.Index.class);
    }

    // ------------------------------------------------------------------ shared

    private <T extends CatalogEntry> T require(String name, Class<T> kind) {
        CatalogEntry e = controller.entry(name);
        if (!kind.isInstance(e)) {
            throw new ControllerException(ControllerException.Reason.WRONG_KIND,
                    "'" + name + "' is a " + kindName(e.getClass()) + ", not a " + kindName(kind));
        }
        return kind.cast(e);
    }

    static String kindName(Class<?> kind) {
        return kind.getSimpleName().toLowerCase();
    }

    private Mono<ServerResponse> drop(ServerRequest request, Class<? extends CatalogEntry> kind) {
        String name = request.pathVariable("name");
        return offLoop(() -> {
            require(name, kind);
            controller.drop(name, kind);
            return name;
        }).flatMap(n -> ServerResponse.noContent().build());
    }
}
