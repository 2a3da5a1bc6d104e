package dev.tandem.expr;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * PostgreSQL's exact {@code numeric} over {@link BigDecimal}s whose scale is the display scale: the result
 * scales of its {@code numeric.c} ({@code +}/{@code -} the larger scale, {@code *} the sum, {@code /} its
 * {@code select_div_scale}), its rounding (half away from zero) and its limits.
 */
public final class Numerics {

    /** PostgreSQL's most digits before the decimal point and after it. */
    private static final int MAX_WEIGHT_DIGITS = 131072;
    private static final int MAX_SCALE = 16383;
    /** {@code NUMERIC_MIN_SIG_DIGITS} and {@code NUMERIC_MAX_DISPLAY_SCALE} of {@code numeric.c}. */
    private static final int MIN_SIG_DIGITS = 16;
    private static final int MAX_DISPLAY_SCALE = 1000;

    private Numerics() {
    }

    static BigDecimal arith(Func f, BigDecimal x, BigDecimal y) {
        return checked(switch (f) {
            case ADD -> x.add(y);
            case SUB -> x.subtract(y);
            case MUL -> x.multiply(y);
            case DIV -> {
                if (y.signum() == 0) {
                    throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero");
                }
                yield x.divide(y, divScale(x, y), RoundingMode.HALF_UP);
            }
            case MOD -> {
                if (y.signum() == 0) {
                    throw new EvalError(EvalError.Code.DIVISION_BY_ZERO, "division by zero in mod");
                }
                yield x.remainder(y).setScale(Math.max(x.scale(), y.scale()));
            }
            default -> throw new IllegalStateException("not arithmetic: " + f);
        });
    }

    /** The scale of PostgreSQL's quotient {@code x / y}: at least 16 significant digits, and no less than either scale. */
    static int divScale(BigDecimal x, BigDecimal y) {
        int w1 = weight(x);
        int w2 = weight(y);
        int qweight = w1 - w2;
        if (firstDigit(x, w1) <= firstDigit(y, w2)) {
            qweight--;
        }
        int scale = MIN_SIG_DIGITS - qweight * 4;
        scale = Math.max(scale, Math.max(x.scale(), y.scale()));
        return Math.min(Math.max(scale, 0), MAX_DISPLAY_SCALE);
    }

    /** The weight of {@code x}'s first non-zero base-10000 digit (PostgreSQL's NBASE), 0 for zero. */
    private static int weight(BigDecimal x) {
        if (x.signum() == 0) {
            return 0;
        }
        return Math.floorDiv(x.precision() - x.scale() - 1, 4);
    }

    private static int firstDigit(BigDecimal x, int weight) {
        if (x.signum() == 0) {
            return 0;
        }
        return x.abs().movePointLeft(4 * weight).setScale(0, RoundingMode.DOWN).intValueExact();
    }

    /** {@code x} rounded half away from zero ({@code trunc}: toward zero) to {@code digits} places; the scale is {@code max(digits, 0)}. */
    static BigDecimal round(BigDecimal x, long digits, boolean trunc) {
        int d = (int) Math.max(-MAX_WEIGHT_DIGITS, Math.min(MAX_SCALE, digits));
        BigDecimal r = x.setScale(d, trunc ? RoundingMode.DOWN : RoundingMode.HALF_UP);
        return checked(r.setScale(Math.max(d, 0)));
    }

    static Object apply(Func f, Object[] a) {
        BigDecimal x = (BigDecimal) a[0];
        return switch (f) {
            case ROUND, ROUND_NUMERIC -> round(x, a.length > 1 ? (Long) a[1] : 0, false);
            case TRUNC -> round(x, a.length > 1 ? (Long) a[1] : 0, true);
            case FLOOR -> x.setScale(0, RoundingMode.FLOOR);
            case CEIL -> x.setScale(0, RoundingMode.CEILING);
            case SIGN -> BigDecimal.valueOf(x.signum());
            default -> throw new IllegalStateException("not a numeric function of numeric: " + f);
        };
    }

    /** {@code v} unless it is beyond PostgreSQL's numeric range ({@code 22003}). */
    public static BigDecimal checked(BigDecimal v) {
        if (v.scale() > MAX_SCALE || v.signum() != 0 && v.precision() - v.scale() > MAX_WEIGHT_DIGITS) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "value overflows numeric format");
        }
        return v.scale() < 0 ? v.setScale(0) : v;
    }

    /**
     * {@code v} as a {@code numeric(precision, scale)} column keeps it: rounded half away from zero to
     * {@code scale} places, {@code 22003} when its integer digits exceed {@code precision - scale}.
     */
    public static BigDecimal fit(BigDecimal v, int precision, int scale) {
        BigDecimal r = v.setScale(scale, RoundingMode.HALF_UP);
        if (r.signum() != 0 && r.precision() - r.scale() > precision - scale) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "numeric field overflow: a field with precision " + precision + ", scale " + scale
                    + " must round to an absolute value less than " + (precision == scale ? "1" : "10^" + (precision - scale)));
        }
        // a negative scale rounds left of the point; the value keeps no negative scale
        return scale < 0 ? r.setScale(0) : r;
    }

    /** A numeric's bigint: rounded half away from zero; {@code 22003} beyond bigint's range. */
    static long toLong(BigDecimal v) {
        BigInteger i = v.setScale(0, RoundingMode.HALF_UP).toBigInteger();
        if (i.bitLength() >= 64) {
            throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "bigint out of range");
        }
        return i.longValue();
    }

    /** A double as PostgreSQL casts it to numeric: its 15 significant digits ({@code DBL_DIG}), trailing zeros dropped. */
    public static BigDecimal ofDouble(double d) {
        if (!Double.isFinite(d)) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: " + (Double.isNaN(d) ? "NaN" : "Infinity") + " as a numeric");
        }
        if (d == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal v = new BigDecimal(String.format(Locale.ROOT, "%.14e", d)).stripTrailingZeros();
        return checked(v);
    }

    /** PostgreSQL's numeric input: a decimal, optionally with an exponent; its scale the digits after the point. */
    public static BigDecimal parse(String s) {
        String t = s.trim();
        if (t.equalsIgnoreCase("nan") || t.toLowerCase(Locale.ROOT).contains("inf")) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: " + t + " as a numeric");
        }
        if (t.isEmpty() || !Character.isDigit(t.charAt(t.length() - 1)) && t.charAt(t.length() - 1) != '.') {
            throw new NumberFormatException(s);
        }
        return checked(new BigDecimal(t));
    }
}
