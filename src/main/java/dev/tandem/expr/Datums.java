package dev.tandem.expr;

import dev.tandem.row.Timestamp;
import java.util.Comparator;

/** The datum order on decoded values, the same as the packed {@link dev.tandem.row.Row} order. */
public final class Datums {

    /**
     * Compares two values of one type with NULL last: false before true, numbers numerically with
     * PostgreSQL's float8 order ({@code -0.0} equals {@code 0.0}; NaN equals NaN and is greater than every
     * other number), strings by code point, timestamps and dates by time, uuids and byteas by their bytes unsigned, intervals by span and then by months, days and microseconds (as packed), numerics by value and then by display scale (as packed), jsonb in PostgreSQL's order and then by text (as packed).
     */
    public static final Comparator<Object> ORDER = Datums::compare;

    private Datums() {
    }

    public static int compare(Object a, Object b) {
        if (a == null || b == null) {
            return a == null ? (b == null ? 0 : 1) : -1;
        }
        if (a instanceof Boolean x && b instanceof Boolean y) return Boolean.compare(x, y);
        if (a instanceof Long x && b instanceof Long y) return Long.compare(x, y);
        if (a instanceof Double x && b instanceof Double y) return x.doubleValue() == y.doubleValue() ? 0 : Double.compare(x, y);
        if (a instanceof String x && b instanceof String y) return compareCodePoints(x, y);
        if (a instanceof Timestamp x && b instanceof Timestamp y) return Long.compare(x.micros(), y.micros());
        if (a instanceof java.time.LocalDate x && b instanceof java.time.LocalDate y) return x.compareTo(y);
        if (a instanceof dev.tandem.row.TimeOfDay x && b instanceof dev.tandem.row.TimeOfDay y) return x.compareTo(y);
        if (a instanceof dev.tandem.row.TimestampTz x && b instanceof dev.tandem.row.TimestampTz y) return Long.compare(x.micros(), y.micros());
        if (a instanceof dev.tandem.row.Interval x && b instanceof dev.tandem.row.Interval y) return x.compareTo(y);
        if (a instanceof dev.tandem.row.Jsonb x && b instanceof dev.tandem.row.Jsonb y) return x.compareTo(y);
        if (a instanceof dev.tandem.row.Bytea x && b instanceof dev.tandem.row.Bytea y) return x.compareTo(y);
        if (a instanceof dev.tandem.row.DatumArray x && b instanceof dev.tandem.row.DatumArray y) return ArrayValues.compare(x, y, false);
        if (a instanceof java.util.UUID x && b instanceof java.util.UUID y) {
            int c = Long.compareUnsigned(x.getMostSignificantBits(), y.getMostSignificantBits());
            return c != 0 ? c : Long.compareUnsigned(x.getLeastSignificantBits(), y.getLeastSignificantBits());
        }
        if (a instanceof java.math.BigDecimal x && b instanceof java.math.BigDecimal y) {
            int c = x.compareTo(y);
            return c != 0 ? c : Integer.compare(x.scale(), y.scale());
        }
        throw new IllegalArgumentException("cannot compare " + a.getClass().getSimpleName() + " with " + b.getClass().getSimpleName());
    }

    /**
     * SQL's comparison of two non-NULL values: {@link #compare}, but numerics by value alone ({@code 1.0 = 1.00}) and
     * intervals by span alone ({@code 1 mon = 30 days}), jsonb in PostgreSQL's order alone,
     * as PostgreSQL compares them.
     */
    public static int sqlCompare(Object a, Object b) {
        if (a instanceof java.math.BigDecimal x && b instanceof java.math.BigDecimal y) {
            return x.compareTo(y);
        }
        if (a instanceof dev.tandem.row.Interval x && b instanceof dev.tandem.row.Interval y) {
            return x.compareSpan(y);
        }
        if (a instanceof dev.tandem.row.Jsonb x && b instanceof dev.tandem.row.Jsonb y) {
            return x.compareValue(y);
        }
        if (a instanceof dev.tandem.row.DatumArray x && b instanceof dev.tandem.row.DatumArray y) {
            return ArrayValues.compare(x, y, true);
        }
        return compare(a, b);
    }

    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }
}
