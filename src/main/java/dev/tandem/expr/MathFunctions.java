package dev.tandem.expr;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * PostgreSQL's numeric functions of double precision over non-NULL arguments, as its {@code float.c}
 * computes them, with its errors: a square root of a negative number or zero raised to a negative power
 * ({@code 2201F}), a logarithm of zero or of a negative number ({@code 2201E}), a result too large or too
 * small for a double ({@code 22003}).
 */
final class MathFunctions {

    private MathFunctions() {
    }

    static Object apply(Func f, Object[] a) {
        double x = (Double) a[0];
        return switch (f) {
            case ROUND -> Math.rint(x);
            case ROUND_NUMERIC -> decimal(x, a.length > 1 ? (Long) a[1] : 0, RoundingMode.HALF_UP);
            case TRUNC -> a.length > 1 ? decimal(x, (Long) a[1], RoundingMode.DOWN) : x >= 0 ? Math.floor(x) : -Math.floor(-x);
            case FLOOR -> Math.floor(x);
            case CEIL -> Math.ceil(x);
            case SIGN -> x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
            case SQRT -> {
                if (x < 0) {
                    throw new EvalError(EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION, "cannot take square root of a negative number");
                }
                yield Math.sqrt(x);
            }
            case EXP -> exp(x);
            case LN, LOG10 -> {
                if (x == 0) {
                    throw new EvalError(EvalError.Code.INVALID_ARGUMENT_FOR_LOGARITHM, "cannot take logarithm of zero");
                }
                if (x < 0) {
                    throw new EvalError(EvalError.Code.INVALID_ARGUMENT_FOR_LOGARITHM, "cannot take logarithm of a negative number");
                }
                yield f == Func.LN ? Math.log(x) : Math.log10(x);
            }
            case POWER -> power(x, (Double) a[1]);
            default -> throw new IllegalStateException("not a numeric function: " + f);
        };
    }

    /**
     * {@code x} rounded (or truncated) to {@code digits} decimal digits, as PostgreSQL's {@code round(numeric,
     * int)}: {@code x} is taken as the shortest decimal that reads back as it ({@code 2.345} is 2.345).
     */
    private static double decimal(double x, long digits, RoundingMode mode) {
        if (!Double.isFinite(x) || digits > 400) {
            return x;
        }
        if (digits < -400) {
            return 0.0;
        }
        return new BigDecimal(Double.toString(x)).setScale((int) digits, mode).doubleValue();
    }

    private static double exp(double x) {
        if (Double.isNaN(x)) {
            return x;
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? x : 0.0;
        }
        double r = Math.exp(x);
        if (Double.isInfinite(r)) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
        }
        if (r == 0.0) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
        }
        return r;
    }

    /** PostgreSQL's {@code dpow}: C's {@code pow} with its special cases, and its range errors. */
    private static double power(double x, double y) {
        if (Double.isNaN(x)) {
            return Double.isNaN(y) || y != 0.0 ? Double.NaN : 1.0;
        }
        if (Double.isNaN(y)) {
            return x != 1.0 ? Double.NaN : 1.0;
        }
        if (x == 0 && y < 0) {
            throw new EvalError(EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION, "zero raised to a negative power is undefined");
        }
        if (x < 0 && Math.floor(y) != y) {
            throw new EvalError(EvalError.Code.INVALID_ARGUMENT_FOR_POWER_FUNCTION, "a negative number raised to a non-integer power yields a complex result");
        }
        if (Double.isInfinite(y) && Math.abs(x) == 1.0) {
            return 1.0;
        }
        if (Double.isInfinite(x) || Double.isInfinite(y)) {
            return Math.pow(x, y);
        }
        double r = Math.pow(x, y);
        if (Double.isInfinite(r)) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "value out of range: overflow");
        }
        if (r == 0.0 && x != 0.0) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "value out of range: underflow");
        }
        return r;
    }
}
