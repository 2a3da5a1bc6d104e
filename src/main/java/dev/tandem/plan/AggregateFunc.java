package dev.tandem.plan;

import java.util.Locale;

/** The aggregate functions of a reduce. */
public enum AggregateFunc {
    /** Number of rows (without an expression) or of non-NULL values; int64. */
    COUNT,
    /** Sum of non-NULL int64 or float64 values, of the value's type; NULL when there are none; int64 overflow is an error. */
    SUM,
    /** Least non-NULL value in the datum order; NULL when there are none. */
    MIN,
    /** Greatest non-NULL value in the datum order; NULL when there are none. */
    MAX,
    /**
     * The non-NULL string values concatenated in ascending order (code point order), each as many times as
     * its multiplicity; NULL when there are none. Recomputed per changed group, not maintained by adding
     * and retracting.
     */
    STRING_AGG,
    /**
     * The values, NULLs included, as an array of their type in ascending {@link dev.tandem.expr.Datums#ORDER} (NULLs
     * last), values that compare equal in the order of their rows, each as many times as its multiplicity; NULL when
     * there are none. Recomputed per changed group.
     */
    ARRAY_AGG,
    /** {@link #ARRAY_AGG} in descending order (NULLs first), values that compare equal in the order of their rows. */
    ARRAY_AGG_DESC;

    /** Whether this is an {@code array_agg}, whose value is an array of its argument's type. */
    public boolean isArrayAgg() {
        return this == ARRAY_AGG || this == ARRAY_AGG_DESC;
    }

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The function of a JSON name, or null. */
    public static AggregateFunc fromJson(String name) {
        for (AggregateFunc f : values()) {
            if (f.jsonName().equals(name)) {
                return f;
            }
        }
        return null;
    }
}
