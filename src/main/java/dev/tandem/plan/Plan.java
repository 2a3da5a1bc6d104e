package dev.tandem.plan;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A plan: a tree of relational operators over multisets of rows, evaluated at each time from the
 * collections it reads. JSON forms are in {@link PlanJson}; typing in {@link #types}; the reference
 * semantics in {@link PlanEvaluator}.
 */
public sealed interface Plan {

    /**
     * The column types of this plan's output given the types of the collections it reads
     * ({@code typesOf} returns null for an unknown id); throws {@link PlanException} with the path
     * (under {@code path}) and the reason of the first error.
     */
    default List<DatumType> types(Function<String, List<DatumType>> typesOf, String path) {
        return PlanTyper.types(this, typesOf, path);
    }

    /** This plan with every {@code get} by name replaced by a {@code get} by id; unknown names are errors. */
    default Plan resolveNames(Function<String, String> idOfName, String path) {
        return PlanTyper.resolve(this, idOfName, path);
    }

    /** The names of the collections this plan reads by name, in first-use order, without duplicates. */
    default List<String> namesRead() {
        return PlanTyper.namesRead(this);
    }

    /** This plan with each {@code get} replaced by {@code replace(get, path)}. */
    default Plan substitute(java.util.function.BiFunction<Get, String, Plan> replace, String path) {
        return PlanTyper.substitute(this, replace, path);
    }

    /** The ids of the collections this plan reads by id, in first-use order, without duplicates. */
    default List<String> dependencies() {
        return PlanTyper.dependencies(this);
    }

    /** Reads collection {@code id} ({@code {"op":"get","id":"u1"}}) or, in the user API, a collection by {@code name}; exactly one is non-null. */
    record Get(String id, String name) implements Plan {
        public Get {
            if ((id == null) == (name == null)) {
                throw new IllegalArgumentException("a get has exactly one of id and name");
            }
        }
    }

    /** A constant collection: each listed row once (a row listed twice has multiplicity 2). */
    record Constant(List<Row> rows, List<DatumType> types) implements Plan {
        public Constant {
            rows = List.copyOf(rows);
            types = List.copyOf(types);
        }
    }

    /** Applies an MFP to every row of {@code input}. */
    record MapFilterProject(Plan input, Mfp mfp) implements Plan {
        public MapFilterProject {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(mfp, "mfp");
        }
    }

    /**
     * The equi-join of two or more inputs: every combination of rows, one per input, on which the
     * columns of each equivalence class of {@code on} are all equal and non-NULL; the output row is the
     * inputs' columns concatenated in order and its multiplicity the product of theirs.
     */
    record Join(List<Plan> inputs, List<List<JoinColumn>> on) implements Plan {
        public Join {
            inputs = List.copyOf(inputs);
            on = on.stream().map(List::copyOf).toList();
        }
    }

    /** Column {@code column} of join input {@code input}; JSON {@code [input, column]}. */
    record JoinColumn(int input, int column) {
    }

    /**
     * Groups {@code input} by the {@code groupKey} columns and outputs, per non-empty group, the key
     * columns followed by one column per aggregate; without aggregates it is {@code distinct}.
     */
    record Reduce(Plan input, List<Integer> groupKey, List<Aggregate> aggregates) implements Plan {
        public Reduce {
            Objects.requireNonNull(input, "input");
            groupKey = List.copyOf(groupKey);
            aggregates = List.copyOf(aggregates);
        }
    }

    /**
     * One aggregate of a reduce; {@code expr} is null only for {@code count}, which then counts rows.
     * NULL values are ignored: {@code count(expr)} counts non-NULL values, {@code sum}, {@code min},
     * {@code max} of no non-NULL values are NULL.
     */
    record Aggregate(AggregateFunc func, Expr expr) {
        public Aggregate {
            Objects.requireNonNull(func, "func");
            if (expr == null && func != AggregateFunc.COUNT) {
                throw new IllegalArgumentException(func.jsonName() + " needs an expression");
            }
        }
    }

    /**
     * Per group of {@code groupKey}, the rows ranked by {@code orderBy} then by the whole row, skipping
     * {@code offset} and keeping at most {@code limit} (null: no limit); a row of multiplicity m ranks as
     * m copies.
     */
    record TopK(Plan input, List<Integer> groupKey, List<Ordering> orderBy, Long limit, long offset) implements Plan {
        public TopK {
            Objects.requireNonNull(input, "input");
            groupKey = List.copyOf(groupKey);
            orderBy = List.copyOf(orderBy);
            if (limit != null && limit < 0 || offset < 0) {
                throw new IllegalArgumentException("negative limit or offset");
            }
        }
    }

    /** One sort column: descending when {@code desc}; NULLs after all values when {@code nullsLast}, whatever the direction. */
    record Ordering(int col, boolean desc, boolean nullsLast) {
    }

    /**
     * Window functions: per partition of {@code partitionBy}, the rows ranked by {@code orderBy} then by
     * the whole row (a row of multiplicity m is m copies), and each row output with its input columns
     * followed by one column per function. Rows equal on every ordering are peers (without orderings, all
     * rows of a partition are).
     */
    record Window(Plan input, List<Integer> partitionBy, List<Ordering> orderBy, List<WindowFunc> functions) implements Plan {
        public Window {
            Objects.requireNonNull(input, "input");
            partitionBy = List.copyOf(partitionBy);
            orderBy = List.copyOf(orderBy);
            functions = List.copyOf(functions);
        }
    }

    /** The functions of a {@link Window}. */
    enum WindowKind {
        ROW_NUMBER, RANK, DENSE_RANK, PERCENT_RANK, CUME_DIST, NTILE, LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE,
        COUNT, SUM, MIN, MAX, VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP;

        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The kind of a JSON name, or null. */
        public static WindowKind fromJson(String name) {
            for (WindowKind k : values()) {
                if (k.jsonName().equals(name)) {
                    return k;
                }
            }
            return null;
        }

        /** Whether the function takes an expression: always for the value functions and aggregates; optionally for count. */
        public boolean takesExpr() {
            return this == LAG || this == LEAD || framed();
        }

        /** Whether the function reads a frame: the aggregates and first_value, last_value, nth_value. */
        public boolean framed() {
            return this == FIRST_VALUE || this == LAST_VALUE || this == NTH_VALUE || this == COUNT || this == SUM || this == MIN
                    || this == MAX || variance();
        }

        /** Whether the function is a variance or standard deviation (of int64 or float64 values, a float64). */
        public boolean variance() {
            return this == VAR_POP || this == VAR_SAMP || this == STDDEV_POP || this == STDDEV_SAMP;
        }

        /** Whether the function takes a positive {@code offset}: lag's and lead's distance, ntile's buckets, nth_value's n. */
        public boolean takesOffset() {
            return this == LAG || this == LEAD || this == NTILE || this == NTH_VALUE;
        }
    }

    /**
     * The rows a framed window function reads for the current row. In ROWS mode a bound is a signed distance
     * from the current row (negative: PRECEDING, 0: CURRENT ROW, positive: FOLLOWING); in RANGE mode the only
     * bound is 0, the current row's first peer as a start and its last peer as an end. A null {@code start}
     * is UNBOUNDED PRECEDING, a null {@code end} UNBOUNDED FOLLOWING. In RANGE mode over a window of one ordering,
     * {@code startAt} (with {@code start} 0) moves the start to the first row whose ordering column does not sort
     * before {@code startAt}'s value on the current row, and {@code endAt} (with {@code end} 0) the end to the last row
     * whose column does not sort after {@code endAt}'s — in the ordering's direction, a NULL where the ordering puts NULLs
     * (so a NULL value, as {@code startAt} of a current row whose column is NULL, is its peers' bound): PostgreSQL's
     * {@code RANGE n PRECEDING} as {@code col - n} ({@code col + n} descending). {@code exclude} takes rows out of the
     * frame as PostgreSQL's {@code EXCLUDE} does.
     */
    record Frame(boolean rows, Long start, Long end, Exclude exclude, Expr startAt, Expr endAt) {
        /** PostgreSQL's default: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the whole partition without orderings). */
        public static final Frame DEFAULT = new Frame(false, null, 0L);

        public Frame {
            Objects.requireNonNull(exclude, "exclude");
            if (!rows && (start != null && start != 0 || end != null && end != 0)) {
                throw new IllegalArgumentException("a RANGE frame's bounds are UNBOUNDED or CURRENT ROW");
            }
            if (startAt != null && (rows || start == null) || endAt != null && (rows || end == null)) {
                throw new IllegalArgumentException("a bound's value is for a RANGE frame's bound of 0");
            }
        }

        /** A frame excluding no rows. */
        public Frame(boolean rows, Long start, Long end) {
            this(rows, start, end, Exclude.NO_OTHERS, null, null);
        }

        /** A frame without bound values. */
        public Frame(boolean rows, Long start, Long end, Exclude exclude) {
            this(rows, start, end, exclude, null, null);
        }

        /** Whether a bound is a value ({@code startAt} or {@code endAt}). */
        public boolean byValue() {
            return startAt != null || endAt != null;
        }
    }

    /**
     * The rows a frame's {@code EXCLUDE} takes out: none, the current row, the current row and its peers, or its
     * peers but not the current row itself.
     */
    enum Exclude {
        NO_OTHERS, CURRENT_ROW, GROUP, TIES;

        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One window function: {@code expr} is null for the ranking functions and {@code count(*)}; {@code offset}
     * is lag's and lead's distance, ntile's number of buckets and nth_value's n (0 for the others); lag and lead
     * answer {@code fallback} (evaluated on the current row; NULL when null) beyond the partition's ends;
     * {@code frame} is the framed functions' (null for the others).
     */
    record WindowFunc(WindowKind kind, Expr expr, long offset, Expr fallback, Frame frame) {
        public WindowFunc {
            Objects.requireNonNull(kind, "kind");
            if (expr != null && !kind.takesExpr()) {
                throw new IllegalArgumentException(kind.jsonName() + " takes no expression");
            }
            if (expr == null && kind.takesExpr() && kind != WindowKind.COUNT) {
                throw new IllegalArgumentException(kind.jsonName() + " needs an expression");
            }
            if (offset < 0 || offset == 0 && (kind == WindowKind.NTILE || kind == WindowKind.NTH_VALUE)
                    || offset != 0 && !kind.takesOffset()) {
                throw new IllegalArgumentException("offset " + offset + " for " + kind.jsonName());
            }
            if (fallback != null && kind != WindowKind.LAG && kind != WindowKind.LEAD) {
                throw new IllegalArgumentException(kind.jsonName() + " takes no default");
            }
            frame = kind.framed() ? (frame == null ? Frame.DEFAULT : frame) : null;
        }

        /** A function without a default, over the default frame when it reads one. */
        public WindowFunc(WindowKind kind, Expr expr, long offset) {
            this(kind, expr, offset, null, null);
        }
    }

    /**
     * A set-returning function applied to each row of {@code input}: the function of {@code args} (evaluated on
     * the row) yields zero or more rows, each output as the input row's columns followed by the function's, with
     * the input row's multiplicity; with {@code keepEmpty}, an input row for which it yields none is output once
     * with NULLs for the function's columns (a {@code LEFT JOIN LATERAL ... ON true}).
     */
    record FlatMap(Plan input, TableFunc func, List<Expr> args, boolean keepEmpty) implements Plan {
        public FlatMap {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(func, "func");
            args = List.copyOf(args);
        }
    }

    /**
     * The set-returning functions of a {@link FlatMap}: {@code generate_series(start, stop[, step])} of int64s or
     * numerics (step 1 by default), or of timestamps stepped by an interval (no rows when an argument is NULL; a step
     * of 0 is an error), {@code unnest(array)}
     * (one row per element, NULLs included; none for a NULL or empty array) and {@code unnest_ordinality}, which adds
     * each element's 1-based position as an int64.
     */
    enum TableFunc {
        GENERATE_SERIES, UNNEST, UNNEST_ORDINALITY;

        public String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** The function of a JSON name, or null. */
        public static TableFunc fromJson(String name) {
            for (TableFunc f : values()) {
                if (f.jsonName().equals(name)) {
                    return f;
                }
            }
            return null;
        }
    }

    /** Keeps the rows of positive multiplicity. */
    record Threshold(Plan input) implements Plan {
        public Threshold {
            Objects.requireNonNull(input, "input");
        }
    }

    /** Negates every multiplicity (errors are not negated). */
    record Negate(Plan input) implements Plan {
        public Negate {
            Objects.requireNonNull(input, "input");
        }
    }

    /** The sum of the inputs' multiplicities; all inputs have the same column types. */
    record Union(List<Plan> inputs) implements Plan {
        public Union {
            inputs = List.copyOf(inputs);
        }
    }

    /** The input unchanged, arranged (indexed) by the {@code key} columns. */
    record ArrangeBy(Plan input, List<Integer> key) implements Plan {
        public ArrangeBy {
            Objects.requireNonNull(input, "input");
            key = List.copyOf(key);
        }
    }

    /**
     * A recursive query's fixed point, as PostgreSQL evaluates {@code WITH RECURSIVE}: the work table starts as
     * {@code seed}'s rows (without duplicates unless {@code all}); {@code step}, which reads the work table as
     * {@code get} of id {@code variable}, is evaluated again and again over the rows the previous evaluation
     * added (under {@code UNION} only rows never produced before are added), until one adds none; the output is
     * every row added. Past {@link #MAX_ITERATIONS} evaluations of {@code step} the output is an error.
     */
    record Iterate(Plan seed, Plan step, String variable, boolean all) implements Plan {
        /** The evaluations of the step past which an iteration is an error rather than a fixed point. */
        public static final int MAX_ITERATIONS = 10_000;

        /** The message of the error of an iteration that passes {@link #MAX_ITERATIONS}. */
        public static final String TOO_MANY_ITERATIONS = "recursive query did not reach a fixed point within " + MAX_ITERATIONS
                + " iterations of its recursive term (it may not terminate: bound it, e.g. with a WHERE on a depth column)";

        public Iterate {
            Objects.requireNonNull(seed, "seed");
            Objects.requireNonNull(step, "step");
            Objects.requireNonNull(variable, "variable");
        }
    }

    /**
     * Keeps each row of {@code input} at the logical times (milliseconds) at which all its {@code bounds} hold:
     * a temporal filter, whose rows enter and leave the output as time passes with no change of their own (a
     * view's {@code WHERE created_at > now() - INTERVAL '1 hour'}). Bound {@code b} holds for a row at time
     * {@code t} when {@code t * 1000 + b.shift()} (microseconds) compares by {@code b.cmp()} with the value of
     * {@code b.expr()} on the row (a timestamptz or timestamp, in microseconds); never when that value is NULL.
     */
    record TemporalFilter(Plan input, List<TemporalBound> bounds) implements Plan {
        public TemporalFilter {
            Objects.requireNonNull(input, "input");
            bounds = List.copyOf(bounds);
        }
    }

    /** One bound of a {@link TemporalFilter}: {@code time * 1000 + shift  cmp  expr(row)}. */
    record TemporalBound(TemporalCmp cmp, Expr expr, long shift) {
        public TemporalBound {
            Objects.requireNonNull(cmp, "cmp");
            Objects.requireNonNull(expr, "expr");
        }
    }

    /** How a {@link TemporalBound} compares the time (left) with the row's value (right). */
    enum TemporalCmp {
        LT("<"), LE("<="), GT(">"), GE(">="), EQ("=");

        private final String jsonName;

        TemporalCmp(String jsonName) {
            this.jsonName = jsonName;
        }

        public String jsonName() {
            return jsonName;
        }

        /** The comparison of a JSON name, or null. */
        public static TemporalCmp fromJson(String name) {
            for (TemporalCmp c : values()) {
                if (c.jsonName.equals(name)) {
                    return c;
                }
            }
            return null;
        }
    }

    static Plan get(String id) {
        return new Get(id, null);
    }

    static Plan getByName(String name) {
        return new Get(null, name);
    }
}
