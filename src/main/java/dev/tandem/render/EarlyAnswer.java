package dev.tandem.render;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.row.Row;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Whether, and where, a bounded dataflow may answer a read with a {@code limit} and no
 * {@code order_by} before its output is complete — and the tap that does it.
 *
 * <p><b>The rule.</b> An early answer may only hold rows that are certainly in the result at the read
 * time {@code t} with at least those multiplicities. That holds when every operator can only ever emit
 * <em>final, positive</em> updates: its output is a sum of products of its inputs' updates, never
 * retracted later. With inputs that are consolidated and non-negative at {@code as_of} — a table's
 * snapshot (tables are multisets) and an imported index read whole at {@code as_of} — these operators
 * are monotone ({@link #monotone}):
 * <ul>
 *   <li>sources, constants and imported indexes read as collections;</li>
 *   <li>map/filter/project;</li>
 *   <li>{@code union} and {@code arrange_by} (each update passed on unchanged);</li>
 *   <li>a join whose sides are both arranged locally from such inputs (products of positive diffs).</li>
 * </ul>
 * Everything else keeps waiting for the complete output: {@code negate} (negative diffs), reduce,
 * {@code top_k} and {@code threshold} (they emit a group's output and retract it as the group
 * changes), and a join that reads an imported index in place, because it pairs with the shared
 * trace's raw history — an insert and its later delete — rather than its consolidated snapshot.
 *
 * <p><b>Where the output is seen.</b> Operators run to completion one stage after another, so rows
 * only reach the export once the stage before it has finished — too late for a join that explodes.
 * The tap therefore watches the output buffer of the <em>producer</em>: the operator whose output
 * reaches the export only through map/filter/project and {@code arrange_by} (the <em>tail</em>),
 * and which runs after every other operator but the tail. It applies the tail to each update the
 * producer writes, as the buffer grows (every few thousand updates, where the memory budget is checked)
 * and at the end of the step; once {@code offset + limit} rows (with multiplicity) have come out, it
 * ends the step and the dataflow answers with them and stops.
 *
 * <p><b>Errors.</b> An evaluation error anywhere makes the whole read an error, so an early answer also
 * needs certainty that none will come. Every operator before the producer has finished, so their
 * errors are known, and any makes the tap give up (the read answers with the error, as today). The
 * producer must be unable to emit errors (so an imported index, whose errors come with it, is never the
 * producer), and the tail may only use expressions that cannot fail on any row ({@link #cannotFail}):
 * rows the tap never looks at must not hide an error.
 */
final class EarlyAnswer {

    /** The producer's position in the dataflow's topological order. */
    final int producer;
    /** The tail's map/filter/projects, in the order they apply (arrangements pass rows unchanged). */
    private final List<MfpEvaluator> tail;

    private EarlyAnswer(int producer, List<MfpEvaluator> tail) {
        this.producer = producer;
        this.tail = tail;
    }

    /**
     * The early-answer shape of a dataflow whose operators are {@code order} (topological, the one
     * export last), or null when the dataflow may not answer early: some operator is not
     * {@link #monotone}, or no producer runs after everything but the tail.
     */
    static EarlyAnswer of(List<Operator> order) {
        if (order.isEmpty() || !(order.get(order.size() - 1) instanceof ExportOperator export)) {
            return null;
        }
        for (Operator op : order) {
            if (!monotone(op) || op instanceof ExportOperator && op != export) {
                return null;
            }
        }
        List<MfpEvaluator> tail = new ArrayList<>();
        Operator op = export.inputs[0];
        int after = 1;
        while (op instanceof MfpOperator || op instanceof LinearOperator l && l.kind == LinearOperator.Kind.ARRANGE) {
            if (op instanceof MfpOperator m) {
                if (!cannotFail(m.spec)) {
                    return null;
                }
                tail.add(0, m.mfp);
            }
            op = op.inputs[0];
            after++;
        }
        int producer = order.indexOf(op);
        if (op instanceof ImportOperator || producer != order.size() - 1 - after) {
            return null;
        }
        return new EarlyAnswer(producer, List.copyOf(tail));
    }

    /** Whether {@code op} only ever emits final, positive updates from such inputs (see the class comment). */
    static boolean monotone(Operator op) {
        return switch (op) {
            case SourceOperator s -> true;
            case ConstantOperator c -> true;
            case ImportOperator i -> true;
            case MfpOperator m -> true;
            case ExportOperator e -> true;
            case LinearOperator l -> l.kind != LinearOperator.Kind.NEGATE;
            case JoinOperator j -> !j.readsInPlace();
            default -> false;
        };
    }

    /** Whether {@code mfp} evaluates without error on every row: only comparisons, logic and string functions that cannot fail. */
    static boolean cannotFail(Mfp mfp) {
        return mfp.map().stream().allMatch(EarlyAnswer::cannotFail) && mfp.filter().stream().allMatch(EarlyAnswer::cannotFail);
    }

    private static boolean cannotFail(Expr e) {
        return switch (e) {
            case Expr.Col c -> true;
            case Expr.Lit l -> true;
            case Expr.Call c -> switch (c.func()) {
                case EQ, NEQ, LT, LTE, GT, GTE, AND, OR, NOT, IS_NULL, COALESCE, IF, CONCAT, LOWER, UPPER, LENGTH, OCTET_LENGTH, CONCAT_ARGS, CONCAT_WS,
                        STRPOS, REPLACE, BTRIM, LTRIM, RTRIM, LEFT, RIGHT, REVERSE, INITCAP, MD5, STARTS_WITH, TRANSLATE, GREATEST, LEAST,
                        ROUND, FLOOR, CEIL, SIGN -> c.args().stream().allMatch(EarlyAnswer::cannotFail);
                // arithmetic overflows or divides by zero, substr refuses a negative length, like a bad escape, a cast a bad value,
                // split_part a zero position, padding a length too large, a regular expression a bad pattern, sqrt/ln/exp/power their domains
                case ADD, SUB, MUL, DIV, MOD, NEG, ABS, SUBSTR, LIKE, ILIKE, CAST, SPLIT_PART, LPAD, RPAD, REPEAT, REGEXP_LIKE, REGEXP_REPLACE, SIMILAR_ESCAPE,
                        ROUND_NUMERIC, TRUNC, SQRT, EXP, LN, LOG10, POWER, EXTRACT, DATE_TRUNC, TZ_PLUS, TIMEZONE, ERROR, FIT_INT4, FIT_INT2, FIT_NUMERIC, MAKE_DATE, TO_TIMESTAMP,
                        TO_CHAR, AGE, FORMAT -> false;
                // a path a malformed array, a length a non-array, a builder a NULL key
                case JSONB_FIELD, JSONB_FIELD_TEXT, JSONB_PATH, JSONB_PATH_TEXT, JSONB_CONTAINS, JSONB_EXISTS, JSONB_CONCAT, JSONB_TYPEOF,
                        JSONB_ARRAY_LENGTH, TO_JSONB, JSONB_BUILD_ARRAY, JSONB_BUILD_OBJECT, JSONB_TO_NUMERIC, JSONB_TO_BOOL -> false;
                // (arrays are few and new: none is counted on)
                case ARRAY, ANY, ALL, ARRAY_GET, ARRAY_LENGTH, CARDINALITY, ARRAY_TO_STRING, ARRAY_CAT, ARRAY_APPEND, ARRAY_PREPEND,
                        ARRAY_CONTAINS, ARRAY_OVERLAP, JSONB_EXISTS_ANY, JSONB_EXISTS_ALL -> false;
            };
        };
    }

    /**
     * A tap for one read at {@code readTime} wanting {@code limit} rows after skipping {@code offset}:
     * {@code answer} gets them once they are all out; {@code errors} says whether the dataflow has
     * produced an error so far.
     */
    Tap tap(long readTime, long offset, long limit, BooleanSupplier errors, Consumer<List<Row>> answer) {
        return new Tap(readTime, offset, limit, errors, answer);
    }

    /** Thrown out of the producer's step once the answer is complete: the dataflow stops. */
    static final class Reached extends RuntimeException {
        Reached() {
            super("answered early", null, false, false);
        }
    }

    /** Watches the producer's output on every worker and gathers the answer; gives up for good on doubt. */
    final class Tap {
        private final long readTime;
        private final long limit;
        private final Consumer<List<Row>> answer;
        private final BooleanSupplier errors;
        private final List<Row> rows = new ArrayList<>();
        private long skip;
        /** Set once the answer was given or the tap gave up; then it watches no more. */
        private volatile boolean done;

        private Tap(long readTime, long offset, long limit, BooleanSupplier errors, Consumer<List<Row>> answer) {
            this.readTime = readTime;
            this.skip = offset;
            this.limit = limit;
            this.errors = errors;
            this.answer = answer;
        }

        /**
         * Takes {@code out}'s updates from {@code from} on (those not seen yet on this worker); returns
         * how far it has seen. Throws {@link Reached} when they complete the answer.
         */
        int observe(Updates out, int from) {
            for (int i = from; i < out.size && !done; i++) {
                if (out.times[i] > readTime) {
                    continue;
                }
                long diff = out.diffs[i];
                Row row = out.row(i);
                for (MfpEvaluator m : tail) {
                    row = m.apply(row);
                    if (row == null) {
                        break;
                    }
                }
                if (diff <= 0) {
                    // Not from non-negative inputs after all: the complete output decides.
                    done = true;
                    return out.size;
                }
                if (row != null && take(row, diff)) {
                    throw new Reached();
                }
            }
            return out.size;
        }

        /** Adds {@code diff} copies of {@code row}; true (once) when that completes the answer and it was given. */
        private synchronized boolean take(Row row, long diff) {
            if (done) {
                return false;
            }
            long skipped = Math.min(skip, diff);
            skip -= skipped;
            Row copy = null;
            for (long n = diff - skipped; n > 0 && rows.size() < limit; n--) {
                if (copy == null) {
                    byte[] b = new byte[row.byteSize()];
                    row.copyTo(b, 0);
                    copy = Row.wrap(b, 0, b.length);
                }
                rows.add(copy);
            }
            if (rows.size() < limit) {
                return false;
            }
            done = true;
            if (errors.getAsBoolean()) {
                return false;
            }
            answer.accept(List.copyOf(rows));
            return true;
        }
    }
}
