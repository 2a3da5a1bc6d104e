package dev.tandem.render;

import dev.tandem.expr.Datums;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;

/**
 * An aggregate's state over the rows of a window frame: how many non-NULL values it holds and their sum
 * (exact: a bigint sum leaving the range is kept as a BigInteger until its result is asked), least or greatest,
 * or their {@link Moments} for a variance.
 */
record WindowAccumulator(long count, Object value) {

    /** A variance's state: the exact sum and sum of squares of the finite values, and how many were infinite or NaN. */
    record Moments(BigDecimal sum, BigDecimal squares, long nonFinite) {
    }

    static final WindowAccumulator EMPTY = new WindowAccumulator(0, null);

    /** The result of an int64 sum beyond the range of int64. */
    static final Object OVERFLOW = new Object();

    /** This state with {@code v} added (a NULL {@code v} changes nothing). */
    WindowAccumulator add(Plan.WindowKind kind, DatumType type, Object v) {
        if (v == null) {
            return this;
        }
        Object next = switch (kind) {
            case SUM -> value == null ? v : sum(type, value, v);
            case MIN -> value == null || Datums.compare(v, value) < 0 ? v : value;
            case MAX -> value == null || Datums.compare(v, value) > 0 ? v : value;
            case VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP -> moments(v);
            default -> null;
        };
        return new WindowAccumulator(count + 1, next);
    }

    /** The aggregate's value: NULL over no values but for count; {@link #OVERFLOW} for a sum out of int64's range. */
    Object result(Plan.WindowKind kind) {
        if (kind == Plan.WindowKind.COUNT) {
            return count;
        }
        if (kind.variance()) {
            return variance(kind);
        }
        if (value instanceof BigInteger big) {
            return big.bitLength() < 64 ? (Object) big.longValue() : OVERFLOW;
        }
        return value;
    }

    private Moments moments(Object v) {
        Moments m = value == null ? new Moments(BigDecimal.ZERO, BigDecimal.ZERO, 0) : (Moments) value;
        if (v instanceof Double d && !Double.isFinite(d)) {
            return new Moments(m.sum(), m.squares(), m.nonFinite() + 1);
        }
        BigDecimal x = v instanceof Long l ? BigDecimal.valueOf(l) : new BigDecimal((Double) v);
        return new Moments(m.sum().add(x), m.squares().add(x.multiply(x)), m.nonFinite());
    }

    /**
     * The variance (or its square root) of the values: NULL over none, and over one for a sample's; NaN with an infinite
     * or NaN value; else {@code (n·Σx² − (Σx)²) / (n·(n or n − 1))}, exact, rounded to 40 digits then to a double.
     */
    private Object variance(Plan.WindowKind kind) {
        boolean sample = kind == Plan.WindowKind.VAR_SAMP || kind == Plan.WindowKind.STDDEV_SAMP;
        if (count == 0 || sample && count == 1) {
            return null;
        }
        Moments m = (Moments) value;
        if (m.nonFinite() > 0) {
            return Double.NaN;
        }
        BigDecimal n = BigDecimal.valueOf(count);
        BigDecimal spread = n.multiply(m.squares()).subtract(m.sum().multiply(m.sum()));
        BigDecimal divisor = n.multiply(sample ? n.subtract(BigDecimal.ONE) : n);
        double variance = spread.divide(divisor, new MathContext(40)).doubleValue();
        return kind == Plan.WindowKind.STDDEV_POP || kind == Plan.WindowKind.STDDEV_SAMP ? Math.sqrt(variance) : variance;
    }

    private static Object sum(DatumType type, Object a, Object b) {
        return switch (type) {
            case INT64 -> {
                if (a instanceof Long x) {
                    long y = (Long) b;
                    long s = x + y;
                    yield ((x ^ s) & (y ^ s)) < 0 ? BigInteger.valueOf(x).add(BigInteger.valueOf(y)) : (Object) s;
                }
                yield ((BigInteger) a).add(BigInteger.valueOf((Long) b));
            }
            case FLOAT64 -> (Double) a + (Double) b;
            case NUMERIC -> ((BigDecimal) a).add((BigDecimal) b);
            default -> throw new IllegalStateException("sum of " + type);
        };
    }
}
