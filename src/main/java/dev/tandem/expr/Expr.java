package dev.tandem.expr;

import dev.tandem.row.DatumType;
import java.util.List;
import java.util.Objects;

/**
 * A scalar expression over one row: a column reference, a typed literal or a function call.
 *
 * <p>JSON forms (see {@link ExprJson}): {@code {"col": i}}, {@code {"lit": v, "type": "int64"}} and
 * {@code {"call": "name", "args": [...]}}; a cast is {@code {"call": "cast", "args": [E], "type": "string"}}.
 * Values are the decoded datums of {@link dev.tandem.row.Row#unpack()}: Boolean, Long, Double, String,
 * {@link dev.tandem.row.Timestamp} or null.
 */
public sealed interface Expr {

    /**
     * The type of this expression over input columns of {@code input}; throws {@link ExprException}
     * naming the sub-expression (relative to {@code path}) and the reason when it is ill-typed.
     */
    default DatumType typeOf(List<DatumType> input, String path) {
        return ExprTyper.typeOf(this, input, path);
    }

    /** {@link #typeOf(List, String)} at the root path. */
    default DatumType typeOf(List<DatumType> input) {
        return typeOf(input, "");
    }

    /**
     * Evaluates this expression on a decoded row; the expression must have type-checked against the
     * row's types. Throws {@link EvalError} on a runtime error and nothing else.
     */
    default Object eval(Object[] row) {
        return ExprEval.eval(this, row);
    }

    /** The largest column index this expression reads, or -1 when it reads none. */
    default int maxColumn() {
        return switch (this) {
            case Col c -> c.index();
            case Lit l -> -1;
            case Call c -> {
                int m = -1;
                for (Expr a : c.args()) {
                    m = Math.max(m, a.maxColumn());
                }
                yield m;
            }
        };
    }

    /** A reference to input column {@code index} (0-based). */
    record Col(int index) implements Expr {
        public Col {
            if (index < 0) {
                throw new IllegalArgumentException("negative column index " + index);
            }
        }
    }

    /** A literal datum of {@code type}; {@code value} is null for NULL, else a value {@code type} accepts. */
    record Lit(Object value, DatumType type) implements Expr {
        public Lit {
            Objects.requireNonNull(type, "type");
            if (value != null && !type.accepts(value)) {
                throw new IllegalArgumentException("literal " + value + " is not a " + type.jsonName());
            }
        }
    }

    /**
     * A call of {@code func} on {@code args}. {@code type} is the target type of a {@link Func#CAST}, the type an
     * {@link Func#ERROR} stands for, the array type of an {@link Func#ARRAY}, and null for every other function.
     *
     * <p>Casts: every type casts to itself and to and from {@code string}; {@code bool <-> int64}
     * (true is 1, non-zero is true); {@code int64 <-> float64} (float to int rounds half away from
     * zero, NaN or out of range is an error); {@code int64 <-> timestamp} (microseconds since the epoch).
     * Other pairs are type errors. Strings cast to bool from {@code true false t f 1 0} (trimmed, any
     * case), to int64 and float64 by decimal parsing, to timestamp from ISO-8601; a string that does not
     * parse is an evaluation error. float64 to string uses Java's {@code Double.toString}, timestamp to
     * string ISO-8601.
     */
    record Call(Func func, List<Expr> args, DatumType type) implements Expr {
        public Call {
            Objects.requireNonNull(func, "func");
            args = List.copyOf(args);
            boolean typed = func == Func.CAST || func == Func.ERROR || func == Func.ARRAY;
            if (typed != (type != null)) {
                throw new IllegalArgumentException(typed ? "a " + func.jsonName() + " needs a target type" : "only a cast, an error or an array has a type");
            }
        }

        public Call(Func func, List<Expr> args) {
            this(func, args, null);
        }
    }

    static Expr col(int index) {
        return new Col(index);
    }

    static Expr lit(Object value, DatumType type) {
        return new Lit(value, type);
    }

    static Expr call(Func func, Expr... args) {
        return new Call(func, List.of(args));
    }

    static Expr cast(Expr arg, DatumType to) {
        return new Call(Func.CAST, List.of(arg), to);
    }
}
