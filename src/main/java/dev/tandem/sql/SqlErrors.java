package dev.tandem.sql;

import dev.tandem.controller.CheckViolationException;
import dev.tandem.controller.ControllerException;
import dev.tandem.expr.EvalError;
import dev.tandem.storage.StorageFullException;
import dev.tandem.storage.UniqueViolationException;

/**
 * Maps the controller's and storage's refusals to SQL errors with PostgreSQL SQLSTATEs, and the JVM's
 * resource errors met while a statement is parsed or planned to PostgreSQL's: heap exhaustion is
 * {@code 53200} out_of_memory, a stack overflow (a statement nested too deep) {@code 54001}, whatever
 * wrapped them (Calcite's parser reports any failure as a parse error).
 */
final class SqlErrors {

    private SqlErrors() {
    }

    static Throwable map(Throwable t) {
        return switch (t) {
            case SqlException s -> s;
            case VirtualMachineError e when exhausted(e) != null -> exhausted(e);
            case RuntimeException e when nestedTooDeep(e) -> new SqlException(SqlException.STACK_DEPTH,
                    "stack depth limit exceeded: the statement's plan nests deeper than the catalog stores (500 levels)");
            case ControllerException c -> new SqlException(state(c), c.getMessage());
            case StorageFullException f -> new SqlException(SqlState.DISK_FULL, f.getMessage());
            case UniqueViolationException u -> SqlException.violation(SqlException.UNIQUE_VIOLATION, u.getMessage(), u.detail(SqlTypes::text), u.constraint());
            case CheckViolationException c -> SqlException.violation(SqlState.CHECK_VIOLATION, c.getMessage(),
                    "Failing row contains (" + String.join(", ", c.row().stream().map(v -> v == null ? "null" : SqlTypes.text(v)).toList()) + ").",
                    c.constraint());
            case java.util.concurrent.RejectedExecutionException r -> new SqlException(SqlException.TOO_MANY_READS,
                    "too many statements are waiting to be planned; retry shortly");
            case IllegalArgumentException i -> new SqlException(SqlException.DATA_EXCEPTION, i.getMessage());
            default -> t;
        };
    }

    /** Whether {@code t} is or was caused by the catalog's JSON encoding refusing a plan nested too deep. */
    private static boolean nestedTooDeep(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof tools.jackson.core.exc.StreamConstraintsException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The SQL error for a resource the JVM ran out of, when {@code t} is or was caused by one
     * ({@link OutOfMemoryError}: {@code 53200}; {@link StackOverflowError}: {@code 54001}), else null.
     */
    static SqlException exhausted(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof OutOfMemoryError) {
                return new SqlException(SqlException.OUT_OF_MEMORY, "out of memory: the server's heap was exhausted while planning the statement");
            }
            if (c instanceof StackOverflowError) {
                return new SqlException(SqlException.STACK_DEPTH, "stack depth limit exceeded: the statement is nested too deeply");
            }
        }
        return null;
    }

    /**
     * Runs parsing or planning work, answering a resource error it meets as its SQL error: an
     * {@link OutOfMemoryError} or {@link StackOverflowError} never escapes as such (Reactor would treat it as
     * fatal and drop the answer), and never as a syntax error.
     */
    static <T> T guarded(java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (OutOfMemoryError | StackOverflowError e) {
            throw exhausted(e);
        } catch (RuntimeException e) {
            SqlException exhausted = exhausted(e);
            throw exhausted != null ? exhausted : e;
        }
    }

    /** The SQL error for an expression's evaluation error on a row ({@code 1 / 0}), as the dataflows report it. */
    static SqlException evaluation(EvalError e) {
        return new SqlException(state(e.code()), e.getMessage());
    }

    /** The SQLSTATE of an evaluation error's code. */
    static SqlState state(EvalError.Code code) {
        return switch (code) {
            case DIVISION_BY_ZERO -> SqlState.DIVISION_BY_ZERO;
            case NUMERIC_OUT_OF_RANGE -> SqlState.NUMERIC_VALUE_OUT_OF_RANGE;
            case INVALID_TEXT_REPRESENTATION -> SqlState.INVALID_TEXT_REPRESENTATION;
            case INVALID_DATETIME_FORMAT -> SqlState.INVALID_DATETIME_FORMAT;
            case DATETIME_FIELD_OVERFLOW -> SqlState.DATETIME_FIELD_OVERFLOW;
            case INTERVAL_FIELD_OVERFLOW -> SqlState.INTERVAL_FIELD_OVERFLOW;
            case INVALID_PARAMETER_VALUE -> SqlState.INVALID_PARAMETER_VALUE;
            case NULL_VALUE_NOT_ALLOWED -> SqlState.NULL_VALUE_NOT_ALLOWED;
            case UNTRANSLATABLE_CHARACTER -> SqlState.UNTRANSLATABLE_CHARACTER;
            case INVALID_ESCAPE_SEQUENCE -> SqlState.INVALID_ESCAPE_SEQUENCE;
            case INVALID_ARGUMENT_FOR_POWER_FUNCTION -> SqlState.INVALID_ARGUMENT_FOR_POWER_FUNCTION;
            case INVALID_ARGUMENT_FOR_LOGARITHM -> SqlState.INVALID_ARGUMENT_FOR_LOGARITHM;
            case INVALID_REGULAR_EXPRESSION -> SqlState.INVALID_REGULAR_EXPRESSION;
            case STRING_DATA_RIGHT_TRUNCATION -> SqlState.STRING_DATA_RIGHT_TRUNCATION;
            case CARDINALITY_VIOLATION -> SqlState.CARDINALITY_VIOLATION;
            case TEMPLATE_SYNTAX_ERROR -> SqlState.SYNTAX_ERROR;
            case PROGRAM_LIMIT_EXCEEDED -> SqlState.PROGRAM_LIMIT_EXCEEDED;
            case MEMORY_BUDGET -> SqlState.OUT_OF_MEMORY;
            case NOT_SUPPORTED -> SqlState.FEATURE_NOT_SUPPORTED;
            case DATA_EXCEPTION -> SqlState.DATA_EXCEPTION;
        };
    }

    /** The SQLSTATE of a controller's refusal, by its reason. */
    static SqlState state(ControllerException c) {
        return switch (c.reason()) {
            case UNKNOWN_OBJECT, NOT_RUNNING -> SqlState.UNDEFINED_TABLE;
            case WRONG_KIND -> SqlState.WRONG_OBJECT_TYPE;
            case DUPLICATE -> SqlState.DUPLICATE_TABLE;
            case DEPENDENT -> SqlState.DEPENDENT_OBJECTS_STILL_EXIST;
            case FED_BY_SOURCE, INDEX_FAILED, DROPPED_SINCE, CATALOG_CONTENDED, STATE_CONFLICT -> SqlState.OBJECT_NOT_IN_PREREQUISITE_STATE;
            case INVALID -> SqlState.DATA_EXCEPTION;
            case INVALID_NAME -> SqlState.INVALID_NAME;
            case NOT_NULL -> SqlState.NOT_NULL_VIOLATION;
            case EVALUATION -> state(c.evalCode());
            case BEFORE_SINCE -> SqlState.SNAPSHOT_TOO_OLD;
            case TOO_LARGE -> SqlState.PROGRAM_LIMIT_EXCEEDED;
            case OVERLOADED -> SqlState.INSUFFICIENT_RESOURCES;
            case LIMITED -> SqlState.CONFIGURATION_LIMIT_EXCEEDED;
            case TIMEOUT -> SqlState.QUERY_CANCELED;
        };
    }
}
