package dev.tandem.sql;

import dev.tandem.controller.ControllerException;
import dev.tandem.storage.StorageFullException;

/** Maps the controller's and storage's refusals to SQL errors with PostgreSQL SQLSTATEs. */
final class SqlErrors {

    private SqlErrors() {
    }

    static Throwable map(Throwable t) {
        return switch (t) {
            case SqlException s -> s;
            case ControllerException c -> new SqlException(state(c), c.getMessage());
            case StorageFullException f -> new SqlException("53100", f.getMessage());
            case IllegalArgumentException i -> new SqlException(SqlException.DATA_EXCEPTION, i.getMessage());
            default -> t;
        };
    }

    private static String state(ControllerException c) {
        String m = c.getMessage() == null ? "" : c.getMessage();
        return switch (c.kind()) {
            case NOT_FOUND -> m.contains("not an index") || m.contains("not a view") || m.contains("not a table") ? "42809" : SqlException.UNDEFINED_TABLE;
            case CONFLICT -> m.contains("already exists") ? SqlException.DUPLICATE_OBJECT
                    : m.contains("is used by") ? SqlException.DEPENDENT_OBJECTS : "55000";
            case INVALID -> m.contains("division by zero") ? SqlException.DIVISION_BY_ZERO
                    : m.contains("escape string") || m.contains("escape character") ? "22025"
                    : m.contains("overflow") || m.contains("out of range") ? SqlException.OUT_OF_RANGE
                    : m.contains("not nullable") ? SqlException.NOT_NULL_VIOLATION
                    : m.contains("cannot cast") ? SqlException.INVALID_TEXT
                    : m.contains("name '") && m.contains("is not valid") ? SqlException.INVALID_NAME
                    : SqlException.DATA_EXCEPTION;
            case BEFORE_SINCE -> SqlException.SNAPSHOT_TOO_OLD;
            case TOO_LARGE -> SqlException.PROGRAM_LIMIT;
            case OVERLOADED -> SqlException.TOO_MANY_READS;
            case LIMITED -> "53400";
            case TIMEOUT -> SqlException.CANCELED;
        };
    }
}
