package dev.tandem.render;

import dev.tandem.plan.DataflowDescription;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.row.Row;
import dev.tandem.row.Schema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One instance of a recursive step's operators, rendered with one shard, which an {@link IterateOperator}
 * steps for one iteration: the collections the step reads enter as sources, and each {@link #step} is one
 * tick of the instance's own clock, so its operators keep their usual incremental state across steps.
 */
final class IterateBody {

    private final List<Operator> order;
    private final List<List<int[]>> consumers;
    private final Operator.Shard[] shards;
    /** inbox[op][port]. */
    private final Updates[][] inbox;
    private final Map<String, SourceOperator> sources;
    private final int root;
    private final Updates scratch = new Updates();
    private long clock;

    /** Renders {@code step} over collections of the given types, by id. */
    IterateBody(Plan step, Map<String, List<DatumType>> inputTypes) {
        Map<String, Schema> imports = new LinkedHashMap<>();
        inputTypes.forEach((id, types) -> imports.put(id, Schema.ofTypes(types)));
        DataflowDescription desc = new DataflowDescription(imports, Map.of(), List.of(), List.of(), 0, null);
        // the step's inputs are the iteration's collections, taken as possibly negative
        DataflowRenderer renderer = new DataflowRenderer(desc, 1, id -> {
            throw new IllegalStateException("a recursive step reads no index import: " + id);
        }, id -> false);
        Operator top = renderer.renderPlan(step);
        sources = renderer.sources;
        OperatorOrder graph = new OperatorOrder(List.of(top));
        order = graph.order;
        consumers = graph.consumers;
        root = graph.indexOf(top);
        shards = new Operator.Shard[order.size()];
        inbox = new Updates[order.size()][];
        for (int o = 0; o < order.size(); o++) {
            shards[o] = order.get(o).shard(0);
            inbox[o] = new Updates[order.get(o).inputs.length];
            for (int p = 0; p < inbox[o].length; p++) {
                inbox[o][p] = new Updates();
            }
        }
    }

    /**
     * Runs one step over the changes {@code in} of the step's inputs (by id; rows with multiplicities), adding the
     * step's output changes to {@code out} and its evaluation errors to {@code errs}, both at {@code time}.
     */
    void step(Map<String, Map<Row, Long>> in, long time, Updates out, Updates errs, LongAdder processed) {
        long t = clock++;
        in.forEach((id, rows) -> {
            SourceOperator s = sources.get(id);
            if (s != null) {
                rows.forEach((r, d) -> s.pending[0].add(r, t, d));
            }
        });
        Operator.Round round = new Operator.Round(t, t + 1, t == 0, processed);
        Updates stepErrs = new Updates();
        for (int o = 0; o < order.size(); o++) {
            shards[o].step(inbox[o], round, scratch, stepErrs);
            for (Updates u : inbox[o]) {
                processed.add(u.size);
                u.clear();
            }
            if (o == root) {
                for (int i = 0; i < scratch.size; i++) {
                    out.add(scratch.row(i), time, scratch.diffs[i]);
                }
            }
            for (int[] edge : consumers.get(o)) {
                inbox[edge[0]][edge[1]].addAll(scratch);
            }
            scratch.clear();
        }
        for (int i = 0; i < stepErrs.size; i++) {
            errs.add(stepErrs.row(i), time, stepErrs.diffs[i]);
        }
    }

    /** Heap bytes of the instance's operator state. */
    long residentBytes() {
        long bytes = 0;
        for (Operator.Shard s : shards) {
            bytes += s.residentBytes();
        }
        return bytes;
    }
}
