package dev.tandem.render;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operators that feed some roots, in topological order (each after its inputs, each once however many
 * consumers it has), with the edges each one's output feeds: {@code {consumer index, input port}}.
 */
final class OperatorOrder {

    final List<Operator> order = new ArrayList<>();
    /** consumers[o]: the {@code {consumer, port}} edges operator {@code o}'s output feeds. */
    final List<List<int[]>> consumers = new ArrayList<>();
    private final Map<Operator, Integer> index = new HashMap<>();

    OperatorOrder(List<? extends Operator> roots) {
        for (Operator root : roots) {
            visit(root);
        }
    }

    /** The position of {@code op} in {@link #order}. */
    int indexOf(Operator op) {
        return index.get(op);
    }

    private void visit(Operator op) {
        if (index.containsKey(op)) {
            return;
        }
        for (Operator in : op.inputs) {
            visit(in);
        }
        index.put(op, order.size());
        order.add(op);
        consumers.add(new ArrayList<>());
        for (int p = 0; p < op.inputs.length; p++) {
            consumers.get(index.get(op.inputs[p])).add(new int[] {index.get(op), p});
        }
    }
}
