package dev.tandem.expr;

import dev.tandem.row.Row;
import java.util.Objects;

/**
 * An evaluation error as a dataflow's error collection holds it: PostgreSQL's message and the
 * {@link EvalError.Code} that chooses its SQLSTATE. Its {@link #row() row} is {@code (message, code)};
 * an error keyed by an index's key has the key's columns after those two.
 */
public record DataError(String message, EvalError.Code code) {

    public DataError {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(code, "code");
    }

    /** The error's row in an error collection: {@code (message, code's JSON name)}. */
    public Row row() {
        return Row.of(message, code.jsonName());
    }

    /**
     * The error an error collection's row holds (its first two columns). A code this build does not know
     * reads as {@link EvalError.Code#DATA_EXCEPTION}, PostgreSQL's class of data errors.
     */
    public static DataError of(Row row) {
        EvalError.Code code = row.arity() > 1 ? EvalError.Code.fromJson((String) row.get(1)) : null;
        return new DataError((String) row.get(0), code == null ? EvalError.Code.DATA_EXCEPTION : code);
    }
}
