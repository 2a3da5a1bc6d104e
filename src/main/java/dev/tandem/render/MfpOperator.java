package dev.tandem.render;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Mfp;
import dev.tandem.expr.MfpEvaluator;
import dev.tandem.row.Row;

/** Map, filter and project each update; an evaluation error becomes an error update. */
final class MfpOperator extends Operator {

    /** What it computes, for deciding whether it can fail ({@link EarlyAnswer}). */
    final Mfp spec;
    final MfpEvaluator mfp;

    MfpOperator(Operator input, Mfp spec, MfpEvaluator mfp) {
        super("mfp", input);
        this.spec = spec;
        this.mfp = mfp;
    }

    @Override
    Shard shard(int w) {
        return (in, round, out, errs) -> {
            Updates u = in[0];
            for (int i = 0; i < u.size; i++) {
                try {
                    Row r = mfp.apply(u.row(i));
                    if (r != null) {
                        out.add(r, u.times[i], u.diffs[i]);
                    }
                } catch (EvalError e) {
                    errs.add(Row.of(e.getMessage()), u.times[i], u.diffs[i]);
                }
            }
        };
    }
}
