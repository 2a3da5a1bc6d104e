package dev.tandem.api;

import static dev.tandem.security.Role.ADMIN;
import static dev.tandem.security.Role.READER;
import static dev.tandem.security.Role.REPLICA;
import static dev.tandem.security.Role.WRITER;

import dev.tandem.security.AccessTable;
import dev.tandem.security.Role;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The route table, the one declaration of every route: its method and path, the role it needs, the path
 * variable naming the table, view or index it touches (checked against a token's object allow-list),
 * whether it reads (and so is admitted against its caller's read and planning limits) and, for the REST
 * routes, the handler that serves it. The router ({@link ApiRoutes}), the {@code Allow} header of a 405,
 * the security matchers and the read admission ({@link ApiSecurity}) are all derived from it; when
 * credentials are configured, anything not declared here is refused (401 without credentials, 403 with).
 * A new REST route is one line: {@code serve("GET", "/v1/indexes/{name}/changes", READER, NAME, h ->
 * h.changes()::stream)}; a path served elsewhere (a WebSocket, the console's static assets, the actuator)
 * is {@code declare("GET", "/console/**", null)} (null: public); a WebSocket op is {@code .op("sql", READER)}.
 * SQL ({@code POST /v1/sql}, the {@code sql} op) needs {@code reader} here and then the role of each
 * statement's kind ({@code SqlGrants}).
 */
public final class ApiAccess {

    /** The path variable naming the object a route touches. */
    private static final String NAME = "name";
    /** The constant answer of {@code GET /v1/ping}: the HTTP stack's own ceiling, against which reads are measured. */
    private static final String PING = "{\"ok\":true}";

    /** The handlers the REST routes are served by. */
    record Handlers(CatalogHandler catalog, ReadHandler read, ChangeStreamHandler changes, SqlHandler sql, SourceHandler sources) {
    }

    /**
     * A declared route.
     *
     * @param object the path variable naming the object the route touches, or null
     * @param reads whether the route reads (admitted against its caller's limits)
     * @param handler the REST handler serving it, or null for a path served elsewhere
     */
    record Route(String method, String pattern, Role role, String object, boolean reads,
            Function<Handlers, HandlerFunction<ServerResponse>> handler) {
    }

    /** Every route, in declaration order. */
    static final List<Route> ROUTES = List.of(
            serve("GET", "/v1/tables", READER, null, h -> h.catalog()::listTables),
            serve("POST", "/v1/tables", ADMIN, null, h -> h.catalog()::createTable),
            serve("GET", "/v1/tables/{name}", READER, NAME, h -> h.catalog()::getTable),
            serve("DELETE", "/v1/tables/{name}", ADMIN, NAME, h -> h.catalog()::dropTable),
            serve("POST", "/v1/tables/{name}/rows", WRITER, NAME, h -> h.catalog()::writeRows),
            serve("GET", "/v1/tables/{name}/changes", READER, NAME, h -> h.changes()::streamCollection),
            serve("GET", "/v1/views", READER, null, h -> h.catalog()::listViews),
            serve("POST", "/v1/views", ADMIN, null, h -> h.catalog()::createView),
            serve("GET", "/v1/views/{name}", READER, NAME, h -> h.catalog()::getView),
            serve("DELETE", "/v1/views/{name}", ADMIN, NAME, h -> h.catalog()::dropView),
            serve("GET", "/v1/views/{name}/changes", READER, NAME, h -> h.changes()::streamCollection),
            serve("GET", "/v1/indexes", READER, null, h -> h.catalog()::listIndexes),
            serve("POST", "/v1/indexes", ADMIN, null, h -> h.catalog()::createIndex),
            serve("GET", "/v1/indexes/{name}", READER, NAME, h -> h.catalog()::getIndex),
            serve("DELETE", "/v1/indexes/{name}", ADMIN, NAME, h -> h.catalog()::dropIndex),
            read("GET", "/v1/indexes/{name}/rows", READER, NAME, h -> h.read()::lookup),
            serve("GET", "/v1/indexes/{name}/changes", READER, NAME, h -> h.changes()::stream),
            read("POST", "/v1/peek", READER, null, h -> h.read()::peek),
            read("POST", "/v1/sql", READER, null, h -> h.sql()::sql),
            serve("GET", "/v1/sources", READER, null, h -> h.sources()::list),
            serve("POST", "/v1/sources", ADMIN, null, h -> h.sources()::create),
            serve("GET", "/v1/sources/{name}", READER, NAME, h -> h.sources()::get),
            serve("DELETE", "/v1/sources/{name}", ADMIN, NAME, h -> h.sources()::drop),
            serve("GET", "/v1/introspection", READER, null, h -> h.read()::listIntrospection),
            // the audit log is read through the handler of its pattern below, with a stricter role
            declare("GET", "/v1/introspection/tandem_audit", ADMIN),
            read("GET", "/v1/introspection/{name}", READER, null, h -> h.read()::readIntrospection),
            read("POST", "/v1/introspection/{name}", READER, null, h -> h.read()::peekIntrospection),
            serve("GET", "/v1/ping", READER, null, h -> r -> ServerResponse.ok().contentType(MediaType.APPLICATION_JSON).bodyValue(PING)),
            declare("GET", "/v1/ws", READER),
            declare("GET", "/v1/compute", REPLICA),
            declare("GET", "/v3/api-docs", READER),
            declare("GET", "/v3/api-docs/**", READER),
            declare("GET", "/v3/api-docs.yaml", READER),
            declare("GET", "/", null),
            declare("GET", "/index.html", null),
            declare("GET", "/console/**", null),
            declare("GET", "/webjars/**", null),
            declare("GET", "/actuator/health", null),
            declare("GET", "/actuator/health/**", null),
            declare("GET", "/actuator/prometheus", null),
            declare("GET", "/actuator", ADMIN),
            declare("GET", "/actuator/**", ADMIN),
            declare("POST", "/actuator/**", ADMIN));

    /** The roles the routes and the WebSocket ops need, as the security layer enforces them. */
    public static final AccessTable TABLE = table();

    private ApiAccess() {
    }

    private static Route serve(String method, String pattern, Role role, String object, Function<Handlers, HandlerFunction<ServerResponse>> handler) {
        return new Route(method, pattern, role, object, false, handler);
    }

    private static Route read(String method, String pattern, Role role, String object, Function<Handlers, HandlerFunction<ServerResponse>> handler) {
        return new Route(method, pattern, role, object, true, handler);
    }

    private static Route declare(String method, String pattern, Role role) {
        return new Route(method, pattern, role, null, false, null);
    }

    private static AccessTable table() {
        AccessTable.Builder b = AccessTable.builder();
        for (Route r : ROUTES) {
            b.route(r.method(), r.pattern(), r.role(), r.object());
        }
        return b.op("peek", READER)
                .op("subscribe", READER)
                .op("unsubscribe", READER)
                .op("subscribe_rows", READER)
                .op("sql", READER)
                .op("cancel_rows", READER)
                .build();
    }

    /** The methods each REST path serves, as a 405's {@code Allow} header lists them (GET, POST, DELETE). */
    static Map<String, String> allowed() {
        Map<String, List<String>> methods = new LinkedHashMap<>();
        for (Route r : ROUTES) {
            if (r.handler() != null) {
                methods.computeIfAbsent(r.pattern(), p -> new ArrayList<>()).add(r.method());
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        methods.forEach((p, ms) -> out.put(p, String.join(", ", List.of("GET", "POST", "DELETE").stream().filter(ms::contains).toList())));
        return out;
    }
}
