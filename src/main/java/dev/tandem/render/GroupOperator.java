package dev.tandem.render;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.GroupFunctions.Member;
import dev.tandem.plan.GroupFunctions.Output;
import dev.tandem.row.Row;
import dev.tandem.time.Frontier;
import dev.tandem.trace.Batch;
import dev.tandem.trace.BatchBuilder;
import dev.tandem.trace.Cursor;
import dev.tandem.trace.ReadHold;
import dev.tandem.trace.Spine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * Operators that recompute a group whenever its input changes: {@code top_k}, {@code threshold}, and
 * a {@code reduce} with a float64 sum (others are a {@link ReduceOperator}). The input is exchanged by group key and arranged in a spine (key → row); for
 * each key touched in a round, at each distinct time in order, the group's output is recomputed from
 * the input accumulated at that time and the difference to its previous output is emitted.
 */
final class GroupOperator extends Operator {

    private final int[] key;
    private final List<Expr> preEvaluated;
    private final BiFunction<Row, List<Member>, Output> group;
    private final long asOf;

    /**
     * @param preEvaluated expressions evaluated on each input update before grouping; an update whose
     *     evaluation fails becomes an error and takes no part in its group (reduce's aggregate arguments)
     */
    GroupOperator(String name, Operator input, int[] key, List<Expr> preEvaluated, BiFunction<Row, List<Member>, Output> group, long asOf) {
        super(name, input);
        this.key = key;
        this.preEvaluated = preEvaluated;
        this.group = group;
        this.asOf = asOf;
    }

    @Override
    Partitioner partitioner(int port) {
        return Partitioners.byColumns(key);
    }

    @Override
    Shard shard(int w) {
        return new GroupShard();
    }

    private final class GroupShard implements Shard {
        private final Spine input = new Spine(name + " input", Frontier.at(asOf));
        /** Keeps the input exact at the times of the round in progress. */
        private final ReadHold frontierHold = input.acquireHold(name, Frontier.at(asOf));
        private final Map<Row, Output> current = new HashMap<>();
        private final BatchBuilder builder = new BatchBuilder();

        @Override
        public long residentBytes() {
            return input.snapshot().byteSize() + 64L * current.size();
        }

        @Override
        public void step(Updates[] in, Round round, Updates out, Updates errs) {
            Updates u = in[0];
            for (int i = 0; i < u.size; i++) {
                Row row = u.row(i);
                if (!preEvaluate(row, u.times[i], u.diffs[i], errs)) {
                    continue;
                }
                builder.add(row.project(key), row, u.times[i], u.diffs[i]);
            }
            Batch delta = builder.build(Frontier.at(round.lower()), Frontier.at(round.upper()), input.since());
            input.insert(delta);
            try {
                recompute(delta, out, errs);
            } finally {
                frontierHold.downgrade(Frontier.at(round.upper()));
            }
        }

        private void recompute(Batch delta, Updates out, Updates errs) {
            if (delta.isEmpty()) {
                return;
            }
            Map<Row, TreeSet<Long>> touched = new java.util.LinkedHashMap<>();
            Cursor dc = delta.cursor();
            while (dc.keyValid()) {
                Row k = dc.key();
                TreeSet<Long> times = new TreeSet<>();
                dc.forEachUpdate((val, time, diff) -> times.add(time));
                touched.put(k, times);
                dc.stepKey();
            }
            // Touched keys come in key order, so one cursor serves them all.
            Cursor c = input.snapshot().cursor();
            for (Map.Entry<Row, TreeSet<Long>> e : touched.entrySet()) {
                Row k = e.getKey();
                c.seekKey(k);
                for (long t : e.getValue()) {
                    List<Member> members = new ArrayList<>();
                    if (c.keyValid() && c.key().equals(k)) {
                        c.accumulate(t, (val, diff) -> members.add(new Member(val, diff)));
                    }
                    Output next = members.isEmpty() ? Output.EMPTY : group.apply(k, members);
                    Output prev = current.getOrDefault(k, Output.EMPTY);
                    emitDifference(prev, next, t, out, errs);
                    if (next.rows().isEmpty() && next.error() == null) {
                        current.remove(k);
                    } else {
                        current.put(k, next);
                    }
                }
            }
        }

        private boolean preEvaluate(Row row, long time, long diff, Updates errs) {
            if (preEvaluated.isEmpty()) {
                return true;
            }
            Object[] values = row.unpack();
            try {
                for (Expr e : preEvaluated) {
                    e.eval(values);
                }
                return true;
            } catch (EvalError err) {
                errs.add(err.error().row(), time, diff);
                return false;
            }
        }
    }

    private static void emitDifference(Output prev, Output next, long t, Updates out, Updates errs) {
        if (prev.equals(next)) {
            return;
        }
        prev.rows().forEach((row, n) -> {
            long m = next.rows().getOrDefault(row, 0L);
            if (m != n) {
                out.add(row, t, m - n);
            }
        });
        next.rows().forEach((row, m) -> {
            if (!prev.rows().containsKey(row)) {
                out.add(row, t, m);
            }
        });
        if (prev.error() != null && !prev.error().equals(next.error())) {
            errs.add(prev.error().row(), t, -1);
        }
        if (next.error() != null && !next.error().equals(prev.error())) {
            errs.add(next.error().row(), t, 1);
        }
    }
}
