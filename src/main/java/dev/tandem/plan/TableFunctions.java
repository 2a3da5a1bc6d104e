package dev.tandem.plan;

import dev.tandem.expr.Datums;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.expr.Func;
import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import dev.tandem.row.Interval;
import java.math.BigDecimal;
import java.util.List;

/**
 * The set-returning functions of {@link Plan.FlatMap} as the rendered operator computes them: their types and
 * their rows, streamed to a sink one at a time so that a long series is never held whole.
 */
public final class TableFunctions {

    /** PostgreSQL's error for a series step of zero (22023). */
    public static final String ZERO_STEP = "step size cannot equal zero";

    /** The most rows one call of {@code generate_series} may yield; a longer series is an error (54000), never held. */
    public static final long MAX_SERIES = 10_000_000L;

    /** The error of a series longer than {@link #MAX_SERIES}. */
    public static final String SERIES_TOO_LONG = "generate_series would return more than " + MAX_SERIES + " rows (the most one call may return)";

    private TableFunctions() {
    }

    /** Receives the rows of one call: each the function's column values. */
    @FunctionalInterface
    public interface Sink {
        void row(Object[] values);
    }

    /**
     * The column types of {@code func} called on arguments of {@code args}; throws {@link PlanException} (at
     * {@code path}) when it takes no such arguments.
     */
    public static List<DatumType> types(Plan.TableFunc func, List<DatumType> args, String path) {
        return switch (func) {
            case GENERATE_SERIES -> {
                if (args.size() != 2 && args.size() != 3) {
                    throw new PlanException(path, "generate_series takes 2 or 3 arguments, got " + args.size());
                }
                DatumType t = args.get(0);
                boolean timestamps = t == DatumType.TIMESTAMP && args.size() == 3 && args.get(1) == t && args.get(2) == DatumType.INTERVAL;
                if (!timestamps && ((t != DatumType.INT64 && t != DatumType.NUMERIC) || !args.stream().allMatch(a -> a == t))) {
                    throw new PlanException(path, "generate_series needs arguments all int64, all numeric, or two timestamps and an interval,"
                            + " got " + PlanTyper.names(args));
                }
                yield List.of(t);
            }
            case UNNEST, UNNEST_ORDINALITY -> {
                if (args.size() != 1 || !args.get(0).isArray()) {
                    throw new PlanException(path, func.jsonName() + " takes one array, got " + PlanTyper.names(args));
                }
                yield func == Plan.TableFunc.UNNEST ? List.of(args.get(0).element()) : List.of(args.get(0).element(), DatumType.INT64);
            }
        };
    }

    /**
     * Sends each row of {@code func} called on the argument values {@code args} to {@code sink}; returns how many
     * it sent. Throws {@link EvalError} when the call fails (a step of zero, a series longer than {@link #MAX_SERIES}),
     * before sending any row.
     */
    public static long apply(Plan.TableFunc func, Object[] args, Sink sink) {
        for (Object a : args) {
            if (a == null) {
                return 0;
            }
        }
        return switch (func) {
            case GENERATE_SERIES -> args[0] instanceof Long ? int64Series(args, sink)
                    : args[0] instanceof BigDecimal ? numericSeries(args, sink) : timestampSeries(args, sink);
            case UNNEST, UNNEST_ORDINALITY -> {
                DatumArray a = (DatumArray) args[0];
                boolean ordinality = func == Plan.TableFunc.UNNEST_ORDINALITY;
                for (int i = 0; i < a.size(); i++) {
                    sink.row(ordinality ? new Object[] {a.get(i), (long) i + 1} : new Object[] {a.get(i)});
                }
                yield a.size();
            }
        };
    }

    private static long int64Series(Object[] args, Sink sink) {
        long start = (Long) args[0];
        long stop = (Long) args[1];
        long step = args.length > 2 ? (Long) args[2] : 1L;
        if (step == 0) {
            throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, ZERO_STEP);
        }
        if (step > 0 ? start <= stop : start >= stop) {
            java.math.BigInteger count = java.math.BigInteger.valueOf(stop).subtract(java.math.BigInteger.valueOf(start))
                    .divide(java.math.BigInteger.valueOf(step));
            if (count.compareTo(java.math.BigInteger.valueOf(MAX_SERIES)) >= 0) {
                throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, SERIES_TOO_LONG);
            }
        }
        long n = 0;
        for (long v = start; step > 0 ? v <= stop : v >= stop; ) {
            sink.row(new Object[] {v});
            n++;
            long next = v + step;
            if (((v ^ next) & (step ^ next)) < 0) {
                break;
            }
            v = next;
        }
        return n;
    }

    private static long timestampSeries(Object[] args, Sink sink) {
        Interval step = (Interval) args[2];
        int sign = step.compareSpan(new Interval(0, 0, 0));
        if (sign == 0) {
            throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, ZERO_STEP);
        }
        Expr next = Expr.call(Func.ADD, Expr.col(0), Expr.lit(step, DatumType.INTERVAL));
        long count = 0;
        for (Object v = args[0]; Datums.compare(v, args[1]) * sign <= 0; v = next.eval(new Object[] {v})) {
            if (++count > MAX_SERIES) {
                throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, SERIES_TOO_LONG);
            }
        }
        for (Object v = args[0]; Datums.compare(v, args[1]) * sign <= 0; v = next.eval(new Object[] {v})) {
            sink.row(new Object[] {v});
        }
        return count;
    }

    private static long numericSeries(Object[] args, Sink sink) {
        BigDecimal start = (BigDecimal) args[0];
        BigDecimal stop = (BigDecimal) args[1];
        BigDecimal step = args.length > 2 ? (BigDecimal) args[2] : BigDecimal.ONE;
        int sign = step.signum();
        if (sign == 0) {
            throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, ZERO_STEP);
        }
        if (start.compareTo(stop) * sign <= 0
                && stop.subtract(start).divide(step, 0, java.math.RoundingMode.DOWN).compareTo(BigDecimal.valueOf(MAX_SERIES)) >= 0) {
            throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, SERIES_TOO_LONG);
        }
        long n = 0;
        for (BigDecimal v = start; v.compareTo(stop) * sign <= 0; v = v.add(step)) {
            sink.row(new Object[] {v});
            n++;
        }
        return n;
    }
}
