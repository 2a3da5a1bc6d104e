package dev.tandem.sql;

import dev.tandem.controller.CheckViolationException;
import dev.tandem.controller.ControllerException;
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
            case StorageFullException f -> new SqlException("53100", f.getMessage());
            case UniqueViolationException u -> SqlException.violation(SqlException.UNIQUE_VIOLATION, u.getMessage(), u.detail(SqlTypes::text), u.constraint());
            case CheckViolationException c -> SqlException.violation("23514", c.getMessage(),
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
    static SqlException evaluation(String message) {
        return new SqlException(invalid(message), message);
    }

    private static String invalid(String m) {
        return m.contains("division by zero") ? SqlException.DIVISION_BY_ZERO
                : m.startsWith("invalid format specification for an interval value") ? "22007"
                : m.startsWith("multiple decimal points") || m.startsWith("cannot use \"")
                        || m.startsWith("\"EEEE\" must be the last pattern used") ? "42601"
                : m.startsWith("unterminated format() type specifier") || m.startsWith("unrecognized format() type specifier")
                        || m.startsWith("too few arguments for format()") || m.startsWith("format specifies argument 0") ? SqlException.INVALID_PARAMETER
                : m.startsWith("null values cannot be formatted as an SQL identifier") ? "22004"
                : m.startsWith("invalid input syntax for type date") || m.startsWith("invalid input syntax for type timestamp with time zone")
                        || m.startsWith("invalid input syntax for type interval")
                        || m.startsWith("invalid input syntax for type time:") ? "22007"
                : m.startsWith("invalid input syntax for type uuid") || m.startsWith("invalid input syntax for type json")
                        || m.startsWith("malformed array literal")
                        || m.startsWith("invalid input syntax for type bytea") ? SqlException.INVALID_TEXT
                : m.startsWith("invalid hexadecimal") ? SqlException.INVALID_PARAMETER
                : m.startsWith("unsupported Unicode escape sequence") ? "22P05"
                : m.startsWith("cannot get array length of") || m.startsWith("argument list must have even number")
                        || m.contains(": key must not be null") || m.startsWith("cannot cast jsonb ") ? SqlException.INVALID_PARAMETER
                : m.startsWith("interval field value out of range") ? "22015"
                : m.startsWith("date/time field value out of range") || m.startsWith("date out of range")
                        || m.startsWith("date field value out of range") || m.startsWith("timestamp cannot be NaN")
                        || m.startsWith("timestamp out of range") || m.startsWith("interval out of range") ? "22008"
                : m.startsWith("unit \"") && m.contains("not supported for type") ? SqlException.NOT_SUPPORTED
                : m.startsWith("unit \"") || m.startsWith("time zone \"") ? SqlException.INVALID_PARAMETER
                : m.contains("exceeded its memory budget") ? SqlException.OUT_OF_MEMORY
                : m.startsWith(RelTranslator.TWO_ROWS) ? "21000"
                : m.contains("escape string") || m.contains("escape character") ? "22025"
                : m.contains("square root of a negative") || m.contains("raised to a negative power") || m.contains("non-integer power") ? "2201F"
                : m.contains("cannot take logarithm") ? "2201E"
                : m.contains("invalid regular expression option") || m.contains("field position must not be zero") ? SqlException.INVALID_PARAMETER
                : m.contains("invalid regular expression") ? "2201B"
                : m.contains("requested length too large") ? SqlException.PROGRAM_LIMIT
                : m.contains("not supported: ") ? SqlException.NOT_SUPPORTED
                : m.contains("overflow") || m.contains("out of range") ? SqlException.OUT_OF_RANGE
                : m.startsWith("value too long for type") ? "22001"
                : m.contains("not nullable") ? SqlException.NOT_NULL_VIOLATION
                : m.contains("cannot cast") ? SqlException.INVALID_TEXT
                : m.contains("name '") && m.contains("is not valid") ? SqlException.INVALID_NAME
                : SqlException.DATA_EXCEPTION;
    }

    private static String state(ControllerException c) {
        String m = c.getMessage() == null ? "" : c.getMessage();
        return switch (c.kind()) {
            case NOT_FOUND -> m.contains("not an index") || m.contains("not a view") || m.contains("not a table") ? "42809" : SqlException.UNDEFINED_TABLE;
            case CONFLICT -> m.contains("already exists") ? SqlException.DUPLICATE_OBJECT
                    : m.contains("is used by") || m.contains("requires it") ? SqlException.DEPENDENT_OBJECTS : "55000";
            case INVALID -> invalid(m);
            case BEFORE_SINCE -> SqlException.SNAPSHOT_TOO_OLD;
            case TOO_LARGE -> SqlException.PROGRAM_LIMIT;
            case OVERLOADED -> SqlException.TOO_MANY_READS;
            case LIMITED -> "53400";
            case TIMEOUT -> SqlException.CANCELED;
        };
    }
}
