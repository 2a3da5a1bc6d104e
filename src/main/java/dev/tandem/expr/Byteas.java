package dev.tandem.expr;

import dev.tandem.row.Bytea;

/** PostgreSQL's {@code bytea} input, as {@code byteain} reads text, with its errors as {@link EvalError}s (22P02, 22023 for bad hexadecimal). */
public final class Byteas {

    private Byteas() {
    }

    /** The bytea {@code s} spells in PostgreSQL's hex or escape form; an {@link EvalError} with PostgreSQL's message otherwise. */
    public static Bytea parse(String s) {
        try {
            return Bytea.parse(s);
        } catch (Bytea.SyntaxError e) {
            throw new EvalError(e.hex() ? EvalError.Code.INVALID_PARAMETER_VALUE : EvalError.Code.INVALID_TEXT_REPRESENTATION, e.getMessage());
        }
    }
}
