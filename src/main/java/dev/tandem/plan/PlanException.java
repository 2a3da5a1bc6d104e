package dev.tandem.plan;

import dev.tandem.expr.ExprException;

/**
 * An invalid plan or dataflow description: malformed JSON, unknown ids, cycles, bad columns or type
 * mismatches. {@link #path()} is the JSON path of the offending value, and the message is
 * {@code "path: reason"}.
 */
public final class PlanException extends ExprException {

    public PlanException(String path, String reason) {
        super(path, reason);
    }

    static PlanException of(ExprException e) {
        return e instanceof PlanException p ? p : new PlanException(e.path(), e.reason());
    }
}
