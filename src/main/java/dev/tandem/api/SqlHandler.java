package dev.tandem.api;

import dev.tandem.row.RowJson;
import dev.tandem.security.AccessPrincipal;
import dev.tandem.security.AuditLog;
import dev.tandem.security.SqlGrants;
import dev.tandem.sql.SqlColumn;
import dev.tandem.sql.SqlEngine;
import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlResult;
import dev.tandem.sql.SqlSession;
import dev.tandem.sql.SqlState;
import dev.tandem.sql.SqlStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /v1/sql} {@code {"sql": "...", "params": [...], "isolation": "strict", "timeZone": "Europe/Berlin"}}: one SQL statement.
 * A query answers the peek answer's shape ({@code columns}, {@code rows}, {@code as_of}, ... {@code path},
 * {@code runtime}), a command {@code {"command": "INSERT", "rows": 3, "timestamp": ...}}. A refused
 * statement answers problem+json with its {@code sqlstate} and, when known, {@code line}, {@code column}
 * and {@code position} ({@code "line:column"}).
 *
 * <p>With credentials in use, a statement needs the role of its kind and the grants on the objects it
 * names ({@link SqlGrants}; 403 otherwise); catalog changes and refusals are audited.
 */
final class SqlHandler {

    static final Set<String> FIELDS = Set.of("sql", "params", "isolation", "timeZone");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final SqlEngine engine;
    private final long maxBodyBytes;
    private final AuditLog audit;

    SqlHandler(SqlEngine engine, long maxBodyBytes, AuditLog audit) {
        this.engine = engine;
        this.maxBodyBytes = maxBodyBytes;
        this.audit = audit;
    }

    Mono<ServerResponse> sql(ServerRequest request) {
        String path = request.path();
        String address = ApiSecurity.address(request.exchange());
        return request.principal().map(p -> Optional.ofNullable(TandemAuthentication.of(p))).defaultIfEmpty(Optional.empty())
                .flatMap(caller -> JsonBody.read(request, maxBodyBytes, FIELDS).flatMap(body -> run(body, caller.orElse(null), address)))
                .flatMap(CatalogHandler::ok)
                .onErrorResume(SqlException.class, e -> {
                    ObjectNode p = problem(e, path);
                    int status = p.get("status").intValue();
                    ServerResponse.BodyBuilder answer = ServerResponse.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
                    if (status == 429 || status == 503) {
                        // Over the caller's or the server's limit of reads: worth retrying shortly.
                        answer.header(HttpHeaders.RETRY_AFTER, "1");
                    }
                    return answer.bodyValue(p.toString());
                });
    }

    /**
     * Runs the statement of a body ({@code sql}, {@code params}, {@code isolation}) for {@code caller}
     * (null: no credentials in use) from {@code address}; errors are {@link SqlException}s or API errors.
     */
    Mono<ObjectNode> run(JsonBody body, AccessPrincipal caller, String address) {
        String sql = body.requiredString("sql");
        JsonNode params = body.array("params");
        String isolation = body.string("isolation");
        SqlSession session = new SqlSession();
        if (caller != null) {
            session.visibleObjects(caller::mayAccess);
        }
        if (isolation != null && !isolation.equals("serializable")) {
            if (!isolation.equals("strict")) {
                throw ApiException.badRequest("isolation: expected 'serializable' or 'strict', got '" + JsonBody.abbreviate(isolation) + "'");
            }
            session.strict(true);
        }
        String timeZone = body.string("timeZone");
        if (timeZone != null) {
            // the statement's session in that TimeZone, as SET TimeZone would set it (22023 for an unknown one)
            session.startupZone(timeZone);
        }
        if (SqlEngine.split(sql).size() > 1) {
            throw ApiException.badRequest("sql: one statement per request");
        }
        List<Object> values = new ArrayList<>();
        if (params != null) {
            for (int i = 0; i < params.size(); i++) {
                values.add(param(params.get(i), i));
            }
        }
        SqlStatement.Kind kind = SqlEngine.kind(sql);
        String who = caller == null ? ApiSecurity.ANONYMOUS : caller.name();
        String target = JsonBody.abbreviate(sql);
        Mono<SqlResult> result = authorized(sql, kind, caller, who, address).then(Mono.defer(() -> engine.execute(sql, values, session)));
        if (kind == SqlStatement.Kind.DDL) {
            result = result.doOnSuccess(r -> audit.record(who, address, "sql", target, r.command()))
                    .doOnError(e -> !(e instanceof ApiException), e -> audit.record(who, address, "sql", target, "failed: " + e.getMessage()));
        }
        return result.map(SqlHandler::json);
    }

    /**
     * Completes when {@code caller} (null: no credentials in use) may run {@code sql}, else fails with 403
     * (audited). The role is checked first; only a caller with an allow-list has the statement's objects
     * found, which may plan it (off the caller's thread, as {@link SqlEngine#objectsAsync} does).
     */
    private Mono<Void> authorized(String sql, SqlStatement.Kind kind, AccessPrincipal caller, String who, String address) {
        if (caller == null) {
            return Mono.empty();
        }
        String byRole = SqlGrants.refusal(caller, kind, Set::of);
        Mono<String> refusal = byRole != null || caller.objects() == null ? Mono.justOrEmpty(byRole)
                : engine.objectsAsync(sql).mapNotNull(objects -> SqlGrants.refusal(caller, kind, () -> objects));
        return refusal.flatMap(r -> {
            audit.record(who, address, "sql", JsonBody.abbreviate(sql), "forbidden: " + r);
            return Mono.<Void>error(new ApiException(HttpStatus.FORBIDDEN, r));
        });
    }

    private static Object param(JsonNode n, int i) {
        if (n.isNull()) {
            return null;
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            return n.longValue();
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (n.isString()) {
            return n.stringValue();
        }
        throw ApiException.badRequest("params[" + i + "]: expected a string, number, boolean or null, got " + JsonBody.kind(n));
    }

    static ObjectNode json(SqlResult r) {
        ObjectNode n = NODES.objectNode();
        if (!r.isQuery()) {
            n.put("command", r.command());
            if (r.command().equals("INSERT") || r.command().equals("UPDATE") || r.command().equals("DELETE")) {
                n.put("rows", r.rowCount());
            }
            if (r.timestamp() != null) {
                n.put("timestamp", r.timestamp());
            }
            return n;
        }
        ArrayNode cols = n.putArray("columns");
        for (SqlColumn c : r.columns()) {
            cols.add(c.name());
        }
        ArrayNode types = n.putArray("types");
        for (SqlColumn c : r.columns()) {
            types.add(c.type().jsonName());
        }
        ArrayNode rows = n.putArray("rows");
        for (Object[] row : r.rows()) {
            ArrayNode a = rows.addArray();
            for (Object v : SqlColumn.output(row, r.columns())) {
                a.add(RowJson.json(v));
            }
        }
        if (r.read() != null) {
            n.put("as_of", r.read().asOf());
            ApiJson.frontier(n, "upper", r.read().upper());
            ApiJson.frontier(n, "since", r.read().since());
            n.put("lag_ms", r.read().lagMs());
            n.put("hydrated", r.read().hydrated());
            n.put("path", r.read().path());
            n.put("runtime", r.read().runtime());
        }
        return n;
    }

    /**
     * The HTTP status of a SQL error, by its SQLSTATE: an exhaustive switch, so a new state must be given
     * its status; data exceptions and integrity violations (classes 22 and 23) are 422, other refusals 400.
     */
    static int status(SqlException e) {
        return switch (e.state()) {
            case UNDEFINED_OBJECT, UNDEFINED_TABLE -> 404;
            case UNIQUE_VIOLATION, DEPENDENT_OBJECTS_STILL_EXIST, DUPLICATE_TABLE, OBJECT_NOT_IN_PREREQUISITE_STATE, SNAPSHOT_TOO_OLD -> 409;
            case QUERY_CANCELED -> 504;
            case INSUFFICIENT_RESOURCES, OUT_OF_MEMORY -> 503;
            case CONFIGURATION_LIMIT_EXCEEDED -> 429;
            case DISK_FULL -> 507;
            case PROGRAM_LIMIT_EXCEEDED, STATEMENT_TOO_COMPLEX -> 413;
            case INTERNAL_ERROR -> 500;
            case DATA_EXCEPTION, STRING_DATA_RIGHT_TRUNCATION, NUMERIC_VALUE_OUT_OF_RANGE, NULL_VALUE_NOT_ALLOWED, INVALID_DATETIME_FORMAT,
                 DATETIME_FIELD_OVERFLOW, DIVISION_BY_ZERO, INVALID_PRECEDING_OR_FOLLOWING_SIZE, INTERVAL_FIELD_OVERFLOW, INVALID_REGULAR_EXPRESSION,
                 INVALID_ARGUMENT_FOR_LOGARITHM, INVALID_ARGUMENT_FOR_POWER_FUNCTION, INVALID_ROW_COUNT_IN_LIMIT_CLAUSE,
                 CHARACTER_NOT_IN_REPERTOIRE, INVALID_PARAMETER_VALUE, INVALID_ESCAPE_SEQUENCE, INVALID_TEXT_REPRESENTATION,
                 INVALID_BINARY_REPRESENTATION, BAD_COPY_FILE_FORMAT, UNTRANSLATABLE_CHARACTER, NOT_NULL_VIOLATION, CHECK_VIOLATION -> 422;
            case PROTOCOL_VIOLATION, FEATURE_NOT_SUPPORTED, CARDINALITY_VIOLATION, READ_ONLY_SQL_TRANSACTION, NO_ACTIVE_SQL_TRANSACTION,
                 IN_FAILED_SQL_TRANSACTION, IDLE_IN_TRANSACTION_SESSION_TIMEOUT, INVALID_SQL_STATEMENT_NAME,
                 INVALID_AUTHORIZATION_SPECIFICATION, INVALID_PASSWORD, INVALID_CURSOR_NAME, INVALID_SCHEMA_NAME, SERIALIZATION_FAILURE,
                 SYNTAX_ERROR_OR_ACCESS_RULE_VIOLATION, INSUFFICIENT_PRIVILEGE, SYNTAX_ERROR, INVALID_NAME, DUPLICATE_COLUMN,
                 AMBIGUOUS_COLUMN, UNDEFINED_COLUMN, DUPLICATE_OBJECT, AMBIGUOUS_FUNCTION, GROUPING_ERROR, DATATYPE_MISMATCH,
                 WRONG_OBJECT_TYPE, CANNOT_COERCE, UNDEFINED_FUNCTION, UNDEFINED_PARAMETER, DUPLICATE_CURSOR, DUPLICATE_PREPARED_STATEMENT,
                 INVALID_COLUMN_REFERENCE, INVALID_TABLE_DEFINITION, INVALID_RECURSION, WINDOWING_ERROR, TOO_MANY_CONNECTIONS, CANT_CHANGE_RUNTIME_PARAM, ADMIN_SHUTDOWN,
                 IDLE_SESSION_TIMEOUT -> 400;
        };
    }

    static ObjectNode problem(SqlException e, String instance) {
        int status = status(e);
        ObjectNode n = NODES.objectNode();
        n.put("type", "https://tandem.dev/problems/sql");
        HttpStatus hs = HttpStatus.resolve(status);
        n.put("title", hs == null ? "SQL error" : hs.getReasonPhrase());
        n.put("status", status);
        n.put("detail", e.detail() == null ? e.getMessage() : e.getMessage() + ": " + e.detail());
        n.put("sqlstate", e.sqlState());
        if (e.constraint() != null) {
            n.put("constraint", e.constraint());
        }
        if (e.line() > 0) {
            n.put("line", e.line());
            n.put("column", e.column());
            n.put("position", e.line() + ":" + e.column());
        }
        if (instance != null) {
            n.put("instance", instance);
        }
        return n;
    }
}
