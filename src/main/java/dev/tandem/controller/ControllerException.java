package dev.tandem.controller;

import dev.tandem.expr.EvalError;
import java.util.Objects;

/**
 * A request the controller refuses: a {@link Reason} saying precisely why (the SQL layer chooses the SQLSTATE
 * and the API the HTTP status by a switch over it), its coarse {@link Kind}, and a message for people.
 */
public final class ControllerException extends RuntimeException {

    /** Why a request was refused, coarsely: the HTTP status class of a refusal. */
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

    /** Why a request was refused, precisely; each reason belongs to one {@link Kind}. */
    public enum Reason {
        /** No object of that name (or the object is gone). */
        UNKNOWN_OBJECT(Kind.NOT_FOUND),
        /** The named object is of another kind than the request needs (a view where an index is needed). */
        WRONG_KIND(Kind.NOT_FOUND),
        /** An index that is not running on any replica. */
        NOT_RUNNING(Kind.NOT_FOUND),
        /** An object of that name already exists. */
        DUPLICATE(Kind.CONFLICT),
        /** Other objects depend on the one to drop. */
        DEPENDENT(Kind.CONFLICT),
        /** The table is fed by a source: only the source writes or drops it. */
        FED_BY_SOURCE(Kind.CONFLICT),
        /** The index failed and is not maintained. */
        INDEX_FAILED(Kind.CONFLICT),
        /** The table was dropped since the rows were written. */
        DROPPED_SINCE(Kind.CONFLICT),
        /** Other replicas kept changing the catalog while this one tried to change it. */
        CATALOG_CONTENDED(Kind.CONFLICT),
        /** Any other state of the object that does not allow the request. */
        STATE_CONFLICT(Kind.CONFLICT),
        /** The request is malformed or ill-typed. */
        INVALID(Kind.INVALID),
        /** A name that is not a valid identifier. */
        INVALID_NAME(Kind.INVALID),
        /** A NULL in a column that is not nullable. */
        NOT_NULL(Kind.INVALID),
        /** An expression failed on a value ({@link #evalCode()} says how). */
        EVALUATION(Kind.INVALID),
        /** The read time is before the compaction frontier. */
        BEFORE_SINCE(Kind.BEFORE_SINCE),
        /** The result exceeds the maximum result size. */
        TOO_LARGE(Kind.TOO_LARGE),
        /** Too many pending peeks. */
        OVERLOADED(Kind.OVERLOADED),
        /** The caller is at one of its own limits. */
        LIMITED(Kind.LIMITED),
        /** The read could not be answered in time, or was canceled. */
        TIMEOUT(Kind.TIMEOUT);

        private final Kind kind;

        Reason(Kind kind) {
            this.kind = kind;
        }

        public Kind kind() {
            return kind;
        }

        /** The general reason of a kind: what a refusal given only its kind stands for. */
        static Reason of(Kind kind) {
            return switch (kind) {
                case NOT_FOUND -> UNKNOWN_OBJECT;
                case CONFLICT -> STATE_CONFLICT;
                case INVALID -> INVALID;
                case BEFORE_SINCE -> BEFORE_SINCE;
                case TOO_LARGE -> TOO_LARGE;
                case OVERLOADED -> OVERLOADED;
                case LIMITED -> LIMITED;
                case TIMEOUT -> TIMEOUT;
            };
        }
    }

    private final Reason reason;
    private final EvalError.Code evalCode;

    public ControllerException(Reason reason, String message) {
        this(reason, null, message);
    }

    /** A refusal of kind {@code kind} for its general reason. */
    public ControllerException(Kind kind, String message) {
        this(Reason.of(kind), null, message);
    }

    private ControllerException(Reason reason, EvalError.Code evalCode, String message) {
        super(message, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.evalCode = evalCode;
    }

    /** An expression's evaluation error on a value, with {@code message} (the error's, in context). */
    public static ControllerException evaluation(EvalError.Code code, String message) {
        return new ControllerException(Reason.EVALUATION, Objects.requireNonNull(code, "code"), message);
    }

    public Kind kind() {
        return reason.kind();
    }

    public Reason reason() {
        return reason;
    }

    /** The evaluation error's code when the reason is {@link Reason#EVALUATION}, else null. */
    public EvalError.Code evalCode() {
        return evalCode;
    }

    static ControllerException notFound(String what) {
        return new ControllerException(Reason.UNKNOWN_OBJECT, what);
    }

    static ControllerException invalid(String what) {
        return new ControllerException(Reason.INVALID, what);
    }
}
