package dev.tandem.render;

import dev.tandem.expr.DataError;
import dev.tandem.expr.EvalError;
import dev.tandem.expr.Mfp;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.row.Row;

/**
 * Map, filter and project each update; an evaluation error becomes an error update. When its only
 * consumer is an exported index, an error names the index key its row would have had, where that key
 * can still be computed, so reads of other keys answer ({@link #keyErrorsBy}).
 */
final class MfpOperator extends Operator {

    /** What it computes, for deciding whether it can fail ({@link EarlyAnswer}). */
    final Mfp spec;
    final MfpEvaluator mfp;
    /** The export key of a failing row, or null when errors are not keyed. */
    private MfpEvaluator keyOf;

    MfpOperator(Operator input, Mfp spec, MfpEvaluator mfp) {
        super("mfp", input);
        this.spec = spec;
        this.mfp = mfp;
    }

    /**
     * Makes each error update {@code (message, key...)} with the export key ({@code key}, output columns)
     * of the failing row, or {@code (message)} when that key itself fails to compute. Call before the
     * operator's shards are made.
     */
    void keyErrorsBy(int[] key) {
        keyOf = spec.columnsOnly(key, mfp.inputTypes().size()).bind(mfp.inputTypes());
    }

    @Override
    Shard shard(int w) {
        MfpEvaluator keys = keyOf;
        return (in, round, out, errs) -> {
            Updates u = in[0];
            for (int i = 0; i < u.size; i++) {
                Row row = u.row(i);
                try {
                    Row r = mfp.apply(row);
                    if (r != null) {
                        out.add(r, u.times[i], u.diffs[i]);
                    }
                } catch (EvalError e) {
                    errs.add(keys == null ? e.error().row() : keyed(e.error(), row, keys), u.times[i], u.diffs[i]);
                }
            }
        };
    }

    private static Row keyed(DataError error, Row row, MfpEvaluator keys) {
        try {
            return error.row().concat(keys.apply(row));
        } catch (EvalError e) {
            return error.row();
        }
    }
}
