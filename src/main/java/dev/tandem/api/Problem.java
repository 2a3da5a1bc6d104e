package dev.tandem.api;

import dev.tandem.controller.ControllerException;
import dev.tandem.storage.LogUnavailableException;
import dev.tandem.storage.StorageFullException;
import dev.tandem.storage.UniqueViolationException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.server.ResponseStatusException;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * An RFC 9457 problem ({@code application/problem+json}): the status, a stable {@code type} per kind
 * of failure, and a {@code detail} that says precisely what was wrong.
 *
 * @param retryAfterSeconds a {@code Retry-After} hint for overload, or 0
 */
public record Problem(int status, String type, String title, String detail, long retryAfterSeconds) {

    private static final String TYPE_PREFIX = "https://tandem.dev/problems/";

    /** The problem an exception stands for; anything unforeseen is a 500 without internals. */
    public static Problem of(Throwable error) {
        return switch (error) {
            case ApiException a when a.status() == HttpStatus.TOO_MANY_REQUESTS || a.status() == HttpStatus.SERVICE_UNAVAILABLE ->
                    new Problem(a.status().value(), TYPE_PREFIX + slug(a.status()), a.status().getReasonPhrase(), a.getMessage(), 1);
            case ApiException a -> of(a.status(), slug(a.status()), a.getMessage());
            case ControllerException c -> ofController(c);
            case UniqueViolationException u -> of(HttpStatus.CONFLICT, "unique-violation", u.getMessage() + ": " + u.detail(Object::toString));
            case dev.tandem.controller.CheckViolationException c -> of(HttpStatus.UNPROCESSABLE_CONTENT, "check-violation", c.getMessage());
            case StorageFullException f -> new Problem(507, TYPE_PREFIX + "insufficient-storage", "Insufficient Storage", f.getMessage(), 5);
            case LogUnavailableException l -> new Problem(503, TYPE_PREFIX + "log-unavailable", "Service Unavailable", l.getMessage(), 1);
            case DataBufferLimitException d -> of(HttpStatus.CONTENT_TOO_LARGE, "body-too-large",
                    "the request body exceeds the limit: " + d.getMessage());
            case io.netty.handler.timeout.TimeoutException t -> of(HttpStatus.REQUEST_TIMEOUT, "request-timeout",
                    "the request body did not arrive in time (tandem.http.read-timeout, tandem.http.request-body-timeout)");
            case JacksonException j -> of(HttpStatus.BAD_REQUEST, "malformed-json", "malformed JSON: " + j.getOriginalMessage());
            case ResponseStatusException r -> ofStatus(r);
            default -> of(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error",
                    "an internal error occurred (" + error.getClass().getSimpleName() + "); the server log has details");
        };
    }

    /** The problem of a controller's refusal, by its reason: an exhaustive switch, so a new reason must be given its status. */
    static Problem ofController(ControllerException c) {
        return switch (c.reason()) {
            case UNKNOWN_OBJECT, WRONG_KIND, NOT_RUNNING -> of(HttpStatus.NOT_FOUND, "not-found", c.getMessage());
            case DUPLICATE, DEPENDENT, FED_BY_SOURCE, INDEX_FAILED, DROPPED_SINCE, CATALOG_CONTENDED, STATE_CONFLICT ->
                    of(HttpStatus.CONFLICT, "conflict", c.getMessage());
            case INVALID, INVALID_NAME, NOT_NULL, EVALUATION -> of(HttpStatus.UNPROCESSABLE_CONTENT, "invalid", c.getMessage());
            case BEFORE_SINCE -> of(HttpStatus.CONFLICT, "before-since", c.getMessage());
            case TOO_LARGE -> of(HttpStatus.CONTENT_TOO_LARGE, "result-too-large", c.getMessage());
            case OVERLOADED -> new Problem(503, TYPE_PREFIX + "overloaded", "Service Unavailable", c.getMessage(), 1);
            case LIMITED -> new Problem(429, TYPE_PREFIX + "too-many-requests", "Too Many Requests", c.getMessage(), 1);
            case TIMEOUT -> of(HttpStatus.GATEWAY_TIMEOUT, "timeout", c.getMessage());
        };
    }

    private static Problem ofStatus(ResponseStatusException r) {
        HttpStatusCode code = r.getStatusCode();
        HttpStatus status = HttpStatus.resolve(code.value());
        String detail = r.getReason() != null ? r.getReason() : r.getMessage();
        if (r.getCause() instanceof DataBufferLimitException d) {
            return of(HttpStatus.CONTENT_TOO_LARGE, "body-too-large", "the request body exceeds the limit: " + d.getMessage());
        }
        if (status == null) {
            return new Problem(code.value(), TYPE_PREFIX + "http-" + code.value(), "HTTP " + code.value(), detail, 0);
        }
        return of(status, slug(status), detail);
    }

    static Problem of(HttpStatus status, String slug, String detail) {
        return new Problem(status.value(), TYPE_PREFIX + slug, status.getReasonPhrase(),
                detail == null || detail.isBlank() ? status.getReasonPhrase() : detail, 0);
    }

    private static String slug(HttpStatus status) {
        return switch (status) {
            case BAD_REQUEST -> "bad-request";
            case NOT_FOUND -> "not-found";
            case METHOD_NOT_ALLOWED -> "method-not-allowed";
            case UNSUPPORTED_MEDIA_TYPE -> "unsupported-media-type";
            case NOT_ACCEPTABLE -> "not-acceptable";
            case CONTENT_TOO_LARGE -> "body-too-large";
            case CONFLICT -> "conflict";
            case UNPROCESSABLE_CONTENT -> "invalid";
            case UNAUTHORIZED -> "unauthorized";
            case FORBIDDEN -> "forbidden";
            case TOO_MANY_REQUESTS -> "too-many-requests";
            case SERVICE_UNAVAILABLE -> "service-unavailable";
            default -> "http-" + status.value();
        };
    }

    public boolean isServerError() {
        return status >= 500;
    }

    /** The problem as JSON; {@code instance} is the request path. */
    public ObjectNode json(String instance) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("type", type);
        n.put("title", title);
        n.put("status", status);
        n.put("detail", detail);
        if (instance != null) {
            n.put("instance", instance);
        }
        return n;
    }
}
