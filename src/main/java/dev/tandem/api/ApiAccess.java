package dev.tandem.api;

import static dev.tandem.security.Role.ADMIN;
import static dev.tandem.security.Role.READER;
import static dev.tandem.security.Role.REPLICA;
import static dev.tandem.security.Role.WRITER;

import dev.tandem.security.AccessTable;

/**
 * The route table: the role every route and every WebSocket operation needs. When credentials are
 * configured, anything not declared here is refused (401 without credentials, 403 with), and
 * {@code AccessMatrixTest} fails for any route the server serves that is not declared. A new route is
 * one line: {@code .route("GET", "/v1/indexes/{name}/changes", READER, "name")} (the last argument names
 * the path variable holding a table, view or index, checked against a token's object allow-list); a new
 * WebSocket op is {@code .op("sql", WRITER)}; a public path (the console's static assets, which call the
 * API with the user's token) is {@code .route("GET", "/console/**", null)}. SQL ({@code POST /v1/sql}, the
 * {@code sql} op) needs {@code reader} here and then the role of each statement's kind ({@code SqlGrants}).
 */
public final class ApiAccess {

    /** The path variable naming the object a route touches. */
    private static final String NAME = "name";

    public static final AccessTable TABLE = AccessTable.builder()
            .route("GET", "/v1/tables", READER)
            .route("POST", "/v1/tables", ADMIN)
            .route("GET", "/v1/tables/{name}", READER, NAME)
            .route("DELETE", "/v1/tables/{name}", ADMIN, NAME)
            .route("POST", "/v1/tables/{name}/rows", WRITER, NAME)
            .route("GET", "/v1/tables/{name}/changes", READER, NAME)
            .route("GET", "/v1/views", READER)
            .route("POST", "/v1/views", ADMIN)
            .route("GET", "/v1/views/{name}", READER, NAME)
            .route("DELETE", "/v1/views/{name}", ADMIN, NAME)
            .route("GET", "/v1/views/{name}/changes", READER, NAME)
            .route("GET", "/v1/indexes", READER)
            .route("POST", "/v1/indexes", ADMIN)
            .route("GET", "/v1/indexes/{name}", READER, NAME)
            .route("DELETE", "/v1/indexes/{name}", ADMIN, NAME)
            .route("GET", "/v1/indexes/{name}/rows", READER, NAME)
            .route("GET", "/v1/indexes/{name}/changes", READER, NAME)
            .route("POST", "/v1/peek", READER)
            .route("POST", "/v1/sql", READER)
            .route("GET", "/v1/sources", READER)
            .route("POST", "/v1/sources", ADMIN)
            .route("GET", "/v1/sources/{name}", READER, NAME)
            .route("DELETE", "/v1/sources/{name}", ADMIN, NAME)
            .route("GET", "/v1/introspection", READER)
            .route("GET", "/v1/introspection/tandem_audit", ADMIN)
            .route("GET", "/v1/introspection/{name}", READER)
            .route("POST", "/v1/introspection/{name}", READER)
            .route("GET", "/v1/ping", READER)
            .route("GET", "/v1/ws", READER)
            .route("GET", "/v1/compute", REPLICA)
            .route("GET", "/v3/api-docs", READER)
            .route("GET", "/v3/api-docs/**", READER)
            .route("GET", "/v3/api-docs.yaml", READER)
            .route("GET", "/", null)
            .route("GET", "/index.html", null)
            .route("GET", "/console/**", null)
            .route("GET", "/webjars/**", null)
            .route("GET", "/actuator/health", null)
            .route("GET", "/actuator/health/**", null)
            .route("GET", "/actuator/prometheus", null)
            .route("GET", "/actuator", ADMIN)
            .route("GET", "/actuator/**", ADMIN)
            .route("POST", "/actuator/**", ADMIN)
            .op("peek", READER)
            .op("subscribe", READER)
            .op("unsubscribe", READER)
            .op("subscribe_rows", READER)
            .op("sql", READER)
            .op("cancel_rows", READER)
            .build();

    private ApiAccess() {
    }
}
