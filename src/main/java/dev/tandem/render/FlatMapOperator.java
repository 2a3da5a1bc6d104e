package dev.tandem.render;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.plan.Plan;
import dev.tandem.plan.TableFunctions;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.List;

/**
 * A set-returning function applied to each update ({@link Plan.FlatMap}): every row the function yields for the
 * update's row is an update of the row followed by the function's columns, with the same time and difference. It
 * keeps no state, so a change to one input row costs that row's outputs only.
 */
final class FlatMapOperator extends Operator {

    private final Plan.TableFunc func;
    private final Expr[] args;
    private final boolean keepEmpty;
    private final DatumType[] funcTypes;

    FlatMapOperator(Operator input, Plan.FlatMap spec, List<DatumType> outTypes, int inputArity) {
        super("flat_map", input);
        this.func = spec.func();
        this.args = spec.args().toArray(Expr[]::new);
        this.keepEmpty = spec.keepEmpty();
        this.funcTypes = outTypes.subList(inputArity, outTypes.size()).toArray(DatumType[]::new);
    }

    @Override
    Shard shard(int w) {
        Object[] argValues = new Object[args.length];
        return (in, round, out, errs) -> {
            Updates u = in[0];
            for (int i = 0; i < u.size; i++) {
                Row row = u.row(i);
                long time = u.times[i];
                long diff = u.diffs[i];
                long produced;
                try {
                    Object[] values = row.unpack();
                    for (int a = 0; a < args.length; a++) {
                        argValues[a] = args[a].eval(values);
                    }
                    produced = TableFunctions.apply(func, argValues, r -> out.add(row, pack(r), time, diff));
                } catch (EvalError e) {
                    errs.add(e.error().row(), time, diff);
                    continue;
                }
                if (produced == 0 && keepEmpty) {
                    out.add(row, pack(new Object[funcTypes.length]), time, diff);
                }
            }
        };
    }

    private Row pack(Object[] values) {
        dev.tandem.row.RowPacker p = new dev.tandem.row.RowPacker();
        for (int i = 0; i < values.length; i++) {
            p.push(funcTypes[i], values[i]);
        }
        return p.finish();
    }
}
