package dev.tandem.render;

import dev.tandem.expr.DataError;
import dev.tandem.expr.Expr;
import dev.tandem.plan.GroupFunctions;
import dev.tandem.plan.Plan;
import dev.tandem.row.Row;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * One window partition maintained under changes: its rows' multiplicities, its copies in order with their last
 * outputs ({@link WindowTree}), and which error it shows. A change re-derives only the positions whose outputs
 * it can change ({@link WindowShape}) and emits their old outputs' retraction and their new ones; a partition
 * holding a negative multiplicity or an int64 sum out of range shows no rows and one error.
 */
final class WindowPartition {

    private final Plan.Window window;
    private final WindowShape shape;
    private final WindowDerivation derivation;
    private final Comparator<Row> order;
    private final LongAdder work;
    private final Map<Row, Long> counts = new HashMap<>();
    private final WindowTree tree;
    private int negatives;
    private int overflows;
    private long bytes;

    WindowPartition(Plan.Window window, WindowShape shape, WindowDerivation derivation, Comparator<Row> order, LongAdder work) {
        this.window = window;
        this.shape = shape;
        this.derivation = derivation;
        this.order = order;
        this.work = work;
        this.tree = new WindowTree(order);
    }

    boolean isEmpty() {
        return counts.isEmpty();
    }

    long residentBytes() {
        return bytes;
    }

    private DataError error() {
        return negatives > 0 ? GroupFunctions.NEGATIVE_WINDOW : overflows > 0 ? GroupFunctions.SUM_OVERFLOW : null;
    }

    /** Applies {@code diffs} (row → multiplicity change) at time {@code t}, emitting the change of this partition's output. */
    void apply(Map<Row, Long> diffs, long t, Updates out, Updates errs) {
        DataError errorBefore = error();
        Map<Row, Long> copyChanges = new HashMap<>();
        for (Map.Entry<Row, Long> e : diffs.entrySet()) {
            long before = counts.getOrDefault(e.getKey(), 0L);
            long after = before + e.getValue();
            if (after == 0) {
                counts.remove(e.getKey());
            } else {
                counts.put(e.getKey(), after);
            }
            negatives += (after < 0 ? 1 : 0) - (before < 0 ? 1 : 0);
            long copies = Math.max(after, 0) - Math.max(before, 0);
            if (copies != 0) {
                copyChanges.put(e.getKey(), copies);
            }
        }
        Map<Row, Long> retracted = new HashMap<>();
        Map<Row, Long> added = new HashMap<>();
        int nOld = tree.size();
        int a = 0;
        int eNew = 0;
        if (!copyChanges.isEmpty()) {
            Row first = null;
            Row last = null;
            for (Row r : copyChanges.keySet()) {
                first = first == null || order.compare(r, first) < 0 ? r : first;
                last = last == null || order.compare(r, last) > 0 ? r : last;
            }
            int eOld = nOld;
            if (!shape.whole) {
                a = (int) Math.max(0, tree.countBefore(first) - shape.following);
                if (shape.peersAfter) {
                    while (a > 0 && shape.peers(tree.get(a - 1).row, first)) {
                        a--;
                        work.increment();
                    }
                }
                if (!shape.prefix) {
                    eOld = (int) Math.min(nOld, tree.countUpTo(last) + shape.preceding);
                    if (shape.peersBefore) {
                        while (eOld < nOld && shape.peers(tree.get(eOld).row, last)) {
                            eOld++;
                            work.increment();
                        }
                    }
                }
                Object low = shape.byValue.isEmpty() ? null : shape.key(first);
                Object high = shape.byValue.isEmpty() ? null : shape.key(last);
                for (Plan.Frame f : shape.byValue) {
                    // the copies whose frame holds a changed value: bounds grow with the position, so they are one run
                    if (f.endAt() != null) {
                        a = Math.min(a, tree.countWhile(n -> shape.place(low, f.endAt().eval(n.values)) > 0));
                    }
                    if (f.startAt() != null && !shape.prefix) {
                        eOld = Math.max(eOld, tree.countWhile(n -> shape.place(f.startAt().eval(n.values), high) <= 0));
                    }
                    work.add(2L * (32 - Integer.numberOfLeadingZeros(nOld)));
                }
            }
            WindowTree.Cursor c = tree.from(a);
            for (int i = a; i < eOld; i++) {
                retract(c.next(), retracted);
            }
            for (Map.Entry<Row, Long> e : copyChanges.entrySet()) {
                change(e.getKey(), e.getValue());
            }
            eNew = shape.prefix || shape.whole ? tree.size() : eOld + tree.size() - nOld;
            derivation.derive(tree, a, eNew);
            c = tree.from(a);
            for (int i = a; i < eNew; i++) {
                WindowTree.Node node = c.next();
                if (node.overflow) {
                    overflows++;
                } else {
                    added.merge(node.outRow, 1L, Long::sum);
                }
            }
        }
        DataError errorAfter = error();
        if (errorBefore == null && errorAfter == null) {
            added.forEach((row, d) -> retracted.merge(row, d, Long::sum));
            emit(retracted, t, out);
        } else if (errorBefore == null) {
            WindowTree.Cursor c = tree.from(0);
            for (int i = 0; c.hasNext(); i++) {
                WindowTree.Node node = c.next();
                if ((i < a || i >= eNew) && node.outRow != null) {
                    retracted.merge(node.outRow, -1L, Long::sum);
                }
            }
            emit(retracted, t, out);
        } else if (errorAfter == null) {
            Map<Row, Long> all = new HashMap<>();
            WindowTree.Cursor c = tree.from(0);
            while (c.hasNext()) {
                all.merge(c.next().outRow, 1L, Long::sum);
            }
            emit(all, t, out);
        }
        if (errorBefore != null && !errorBefore.equals(errorAfter)) {
            errs.add(errorBefore.row(), t, -1);
        }
        if (errorAfter != null && !errorAfter.equals(errorBefore)) {
            errs.add(errorAfter.row(), t, 1);
        }
    }

    /** Counts a copy's last output as retracted, and forgets it as an overflow. */
    private void retract(WindowTree.Node node, Map<Row, Long> emitted) {
        work.increment();
        if (node.overflow) {
            overflows--;
            node.overflow = false;
        } else if (node.outRow != null) {
            emitted.merge(node.outRow, -1L, Long::sum);
        }
    }

    private void change(Row row, long copies) {
        if (copies > 0) {
            Object[] values = row.unpack();
            for (long i = 0; i < copies; i++) {
                tree.insert(new WindowTree.Node(row, values, arguments(values), tree.nextPriority()));
                bytes += 2L * row.byteSize() + 96;
            }
        } else {
            for (long i = 0; i < -copies; i++) {
                WindowTree.Node removed = tree.removeLast(row);
                if (removed.overflow) {
                    overflows--;
                }
                bytes -= 2L * row.byteSize() + 96;
            }
        }
    }

    private Object[] arguments(Object[] values) {
        List<Plan.WindowFunc> fns = window.functions();
        Object[] args = new Object[fns.size()];
        for (int f = 0; f < args.length; f++) {
            Expr e = fns.get(f).expr();
            args[f] = e == null ? Boolean.TRUE : e.eval(values);
        }
        return args;
    }

    private void emit(Map<Row, Long> emitted, long t, Updates out) {
        emitted.forEach((row, d) -> {
            if (d != 0) {
                out.add(row, t, d);
                work.increment();
            }
        });
    }
}
