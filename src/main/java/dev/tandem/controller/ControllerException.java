package dev.tandem.controller;

/** A request the controller refuses; {@link Kind} says why, and the API maps it to an HTTP status. */
public final class ControllerException extends RuntimeException {

    /** Why a request was refused. */
    public enum Kind {
        /** A named object does not exist (404). */
        NOT_FOUND,
        /** The request conflicts with the catalog: a duplicate name, a dependent object (409). */
        CONFLICT,
        /** The request is malformed or ill-typed (422). */
        INVALID,
        /** The read time is before the compaction frontier (409). */
        BEFORE_SINCE,
        /** The result exceeds the maximum result size (413). */
        TOO_LARGE,
        /** Too many pending peeks: try again later (503 with Retry-After). */
        OVERLOADED,
        /** The caller is at one of its own limits (per principal): try again when some of its reads end (429 with Retry-After). */
        LIMITED,
        /** The read could not be answered in time (504). */
        TIMEOUT
    }

    private final Kind kind;

    public ControllerException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    static ControllerException notFound(String what) {
        return new ControllerException(Kind.NOT_FOUND, what);
    }

    static ControllerException invalid(String what) {
        return new ControllerException(Kind.INVALID, what);
    }

    static ControllerException conflict(String what) {
        return new ControllerException(Kind.CONFLICT, what);
    }
}
