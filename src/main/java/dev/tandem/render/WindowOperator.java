package dev.tandem.render;

import dev.tandem.expr.EvalError;
import dev.tandem.expr.Expr;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code window} operator: the input is exchanged by partition key, and each shard keeps every partition's
 * copies in order with their last outputs ({@link WindowPartition}); a change re-derives only the copies whose
 * outputs it can change. {@link #work()} counts the copies read or re-derived and the updates emitted.
 */
final class WindowOperator extends Operator {

    private final Plan.Window window;
    private final List<DatumType> outTypes;
    private final int[] key;
    private final long asOf;
    private final WindowShape shape;
    private final Comparator<Row> order;
    private final LongAdder work = new LongAdder();

    WindowOperator(Operator input, Plan.Window window, List<DatumType> outTypes, long asOf) {
        super("window", input);
        this.window = window;
        this.outTypes = outTypes;
        this.key = window.partitionBy().stream().mapToInt(Integer::intValue).toArray();
        this.asOf = asOf;
        this.shape = new WindowShape(window);
        this.order = GroupFunctions.orderBy(window.orderBy());
    }

    /** The copies read or re-derived and the updates emitted so far, over all shards. */
    long work() {
        return work.sum();
    }

    @Override
    Partitioner partitioner(int port) {
        return Partitioners.byColumns(key);
    }

    @Override
    Shard shard(int w) {
        return new WindowShard();
    }

    private final class WindowShard implements Shard {
        private final Map<Row, WindowPartition> partitions = new HashMap<>();
        private final WindowDerivation derivation = new WindowDerivation(window, outTypes, shape, work);
        private long bytes;

        @Override
        public long residentBytes() {
            return bytes;
        }

        @Override
        public void step(Updates[] in, Round round, Updates out, Updates errs) {
            Updates u = in[0];
            TreeMap<Long, Map<Row, Map<Row, Long>>> byTime = new TreeMap<>();
            for (int i = 0; i < u.size; i++) {
                Row row = u.row(i);
                long time = Math.max(u.times[i], asOf);
                if (!evaluates(row, time, u.diffs[i], errs)) {
                    continue;
                }
                byTime.computeIfAbsent(time, x -> new LinkedHashMap<>())
                        .computeIfAbsent(row.project(key), x -> new HashMap<>())
                        .merge(row, u.diffs[i], Long::sum);
            }
            for (Map.Entry<Long, Map<Row, Map<Row, Long>>> at : byTime.entrySet()) {
                for (Map.Entry<Row, Map<Row, Long>> p : at.getValue().entrySet()) {
                    Map<Row, Long> diffs = p.getValue();
                    diffs.values().removeIf(d -> d == 0);
                    if (diffs.isEmpty()) {
                        continue;
                    }
                    WindowPartition partition = partitions.computeIfAbsent(p.getKey(),
                            k -> new WindowPartition(window, shape, derivation, order, work));
                    bytes -= partition.residentBytes();
                    partition.apply(diffs, at.getKey(), out, errs);
                    bytes += partition.residentBytes();
                    if (partition.isEmpty()) {
                        partitions.remove(p.getKey());
                    }
                }
            }
        }

        /** Whether the functions' arguments, defaults and frame bound values evaluate on {@code row}; if not, its error is output instead. */
        private boolean evaluates(Row row, long time, long diff, Updates errs) {
            Object[] values = null;
            try {
                for (Plan.WindowFunc f : window.functions()) {
                    if (f.expr() != null || f.fallback() != null || f.frame() != null && f.frame().byValue()) {
                        values = values == null ? row.unpack() : values;
                        for (Expr e : new Expr[] {f.expr(), f.fallback(), f.frame() == null ? null : f.frame().startAt(),
                                f.frame() == null ? null : f.frame().endAt()}) {
                            if (e != null) {
                                e.eval(values);
                            }
                        }
                    }
                }
                return true;
            } catch (EvalError err) {
                errs.add(err.error().row(), time, diff);
                return false;
            }
        }
    }
}
