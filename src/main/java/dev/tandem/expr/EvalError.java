package dev.tandem.expr;

/**
 * A runtime error of evaluating an expression on one row (division by zero, int64 overflow, a failed
 * cast). It is cheap — no stack trace — because operators catch it and turn it into an update of the
 * dataflow's error collection; its message is the error's datum.
 */
public final class EvalError extends RuntimeException {

    public EvalError(String message) {
        super(message, null, false, false);
    }
}
