package dev.tandem.sql;

import java.time.Duration;

/**
 * What one statement may cost before it runs, and what the engine keeps of statements it has seen:
 * the length of a statement's text in UTF-8 bytes, how many literals it may hold (an {@code IN} list's
 * elements, a multi-row {@code VALUES}), how long planning it may take, and the bytes the plan cache
 * (and the cache of the objects statements name) may hold each. A statement over a bound is refused
 * with {@code 54000} "statement too complex", naming the bound and its property, before anything runs;
 * a recursive query is stopped the same way when its recursion runs more iterations, or produces more
 * rows, than {@code maxRecursionIterations} and {@code maxRecursionRows}.
 */
public record SqlLimits(long maxStatementBytes, int maxLiterals, Duration planningTimeout, long planCacheBytes, int maxRecursionIterations,
        long maxRecursionRows) {

    /** The most iterations of one recursive {@code WITH} query, by default. */
    public static final int DEFAULT_RECURSION_ITERATIONS = 10_000;
    /** The most rows one recursive {@code WITH} query produces, by default. */
    public static final long DEFAULT_RECURSION_ROWS = 1_000_000;

    /** The defaults: far above what real queries need (PostgreSQL's own tests send IN lists of 60,000 literals). */
    public static final SqlLimits DEFAULTS = new SqlLimits(4L << 20, 200_000, Duration.ofSeconds(30), 64L << 20);

    public SqlLimits {
        if (maxStatementBytes <= 0 || maxLiterals <= 0 || planningTimeout.isNegative() || planningTimeout.isZero() || planCacheBytes < 0
                || maxRecursionIterations <= 0 || maxRecursionRows <= 0) {
            throw new IllegalArgumentException("SQL limits must be positive (plan-cache-bytes may be 0: no cache), got " + maxStatementBytes
                    + " statement bytes, " + maxLiterals + " literals, planning timeout " + planningTimeout + ", " + planCacheBytes
                    + " plan cache bytes, " + maxRecursionIterations + " recursion iterations, " + maxRecursionRows + " recursion rows");
        }
    }

    /** Limits with the default bounds of recursion. */
    public SqlLimits(long maxStatementBytes, int maxLiterals, Duration planningTimeout, long planCacheBytes) {
        this(maxStatementBytes, maxLiterals, planningTimeout, planCacheBytes, DEFAULT_RECURSION_ITERATIONS, DEFAULT_RECURSION_ROWS);
    }

    /** A bound on one statement's cost, with the property that sets it. */
    public enum Bound {
        /** The statement's text, in UTF-8 bytes. */
        STATEMENT_BYTES("max-statement-bytes", "bytes of text"),
        /** Literals (numbers and strings) in the statement's text. */
        LITERALS("max-literals", "literals"),
        /** Time to parse, validate and plan the statement. */
        PLANNING_TIME("planning-timeout", "of planning"),
        /** Iterations of one recursive {@code WITH} query's recursive term. */
        RECURSION_ITERATIONS("max-recursion-iterations", "iterations of a recursive query"),
        /** Rows one recursive {@code WITH} query produces. */
        RECURSION_ROWS("max-recursion-rows", "rows of a recursive query");

        private final String property;
        private final String unit;

        Bound(String property, String unit) {
            this.property = property;
            this.unit = unit;
        }

        /** The property that sets this bound. */
        public String property() {
            return "tandem.sql." + property;
        }

        String unit() {
            return unit;
        }
    }
}
