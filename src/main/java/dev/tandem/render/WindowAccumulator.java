package dev.tandem.render;

import dev.tandem.expr.Datums;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * An aggregate's state over the rows of a window frame: how many non-NULL values it holds and their sum
 * (exact: a bigint sum leaving the range is kept as a BigInteger until its result is asked), least or greatest.
 */
record WindowAccumulator(long count, Object value) {

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
            default -> null;
        };
        return new WindowAccumulator(count + 1, next);
    }

    /** The aggregate's value: NULL over no values but for count; {@link #OVERFLOW} for a sum out of int64's range. */
    Object result(Plan.WindowKind kind) {
        if (kind == Plan.WindowKind.COUNT) {
            return count;
        }
        if (value instanceof BigInteger big) {
            return big.bitLength() < 64 ? (Object) big.longValue() : OVERFLOW;
        }
        return value;
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
