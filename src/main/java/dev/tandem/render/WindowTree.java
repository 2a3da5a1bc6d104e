package dev.tandem.render;

import dev.tandem.row.Row;
import java.util.ArrayDeque;
import java.util.Comparator;

/**
 * One window partition's rows in order, a copy per unit of multiplicity, as a treap sized at every node: a
 * position's node, a row's rank and an insertion or removal each cost O(log n), and a run from a position is
 * read in order at O(1) a node.
 */
final class WindowTree {

    /** One copy of a row with what the window operator last derived for it. */
    static final class Node {
        final Row row;
        final Object[] values;
        /** Each function's argument on this row (TRUE for {@code count(*)}). */
        final Object[] args;
        /** Each function's output, as last derived. */
        final Object[] out;
        /** Each running aggregate's state over its frame, and the last position that state covers. */
        final WindowAccumulator[] acc;
        final long[] accEnd;
        /** The output row last emitted for this copy; null when an output is an overflow. */
        Row outRow;
        boolean overflow;
        private Node left;
        private Node right;
        private final int priority;
        private int size = 1;

        Node(Row row, Object[] values, Object[] args, int priority) {
            this.row = row;
            this.values = values;
            this.args = args;
            this.out = new Object[args.length];
            this.acc = new WindowAccumulator[args.length];
            this.accEnd = new long[args.length];
            this.priority = priority;
        }
    }

    private final Comparator<Row> order;
    private Node root;
    private int seed = 0x2545F491;

    WindowTree(Comparator<Row> order) {
        this.order = order;
    }

    int size() {
        return size(root);
    }

    int nextPriority() {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return seed;
    }

    /** The number of copies ordered strictly before {@code row}. */
    int countBefore(Row row) {
        return count(row, false);
    }

    /** The number of copies ordered before {@code row} or equal to it. */
    int countUpTo(Row row) {
        return count(row, true);
    }

    private int count(Row row, boolean inclusive) {
        int n = 0;
        Node t = root;
        while (t != null) {
            int c = order.compare(t.row, row);
            if (c < 0 || inclusive && c == 0) {
                n += size(t.left) + 1;
                t = t.right;
            } else {
                t = t.left;
            }
        }
        return n;
    }

    /** The number of copies, from the first, for which {@code before} holds: it must hold of a prefix of the copies. */
    int countWhile(java.util.function.Predicate<Node> before) {
        int n = 0;
        Node t = root;
        while (t != null) {
            if (before.test(t)) {
                n += size(t.left) + 1;
                t = t.right;
            } else {
                t = t.left;
            }
        }
        return n;
    }

    /** The copy at {@code position} (0-based). */
    Node get(int position) {
        Node t = root;
        int i = position;
        while (t != null) {
            int l = size(t.left);
            if (i < l) {
                t = t.left;
            } else if (i == l) {
                return t;
            } else {
                i -= l + 1;
                t = t.right;
            }
        }
        throw new IndexOutOfBoundsException(position);
    }

    /** Inserts {@code node} after the copies ordered before it or equal to it. */
    void insert(Node node) {
        Node[] parts = split(root, countUpTo(node.row));
        root = merge(merge(parts[0], node), parts[1]);
    }

    /** Removes the last copy of {@code row}, which must be present, and returns it. */
    Node removeLast(Row row) {
        int at = countUpTo(row) - 1;
        Node[] parts = split(root, at);
        Node[] rest = split(parts[1], 1);
        root = merge(parts[0], rest[1]);
        return rest[0];
    }

    /** The copies from {@code position} on, in order. */
    Cursor from(int position) {
        return new Cursor(position);
    }

    /** An in-order walk over the copies from a position. */
    final class Cursor {
        private final ArrayDeque<Node> stack = new ArrayDeque<>();

        private Cursor(int position) {
            Node t = root;
            int i = position;
            while (t != null) {
                int l = size(t.left);
                if (i < l) {
                    stack.push(t);
                    t = t.left;
                } else if (i == l) {
                    stack.push(t);
                    break;
                } else {
                    i -= l + 1;
                    t = t.right;
                }
            }
        }

        boolean hasNext() {
            return !stack.isEmpty();
        }

        Node next() {
            Node n = stack.pop();
            for (Node t = n.right; t != null; t = t.left) {
                stack.push(t);
            }
            return n;
        }
    }

    private static int size(Node t) {
        return t == null ? 0 : t.size;
    }

    private static Node update(Node t) {
        t.size = size(t.left) + size(t.right) + 1;
        return t;
    }

    /** The first {@code k} copies of {@code t} and the rest. */
    private static Node[] split(Node t, int k) {
        if (t == null) {
            return new Node[2];
        }
        if (size(t.left) >= k) {
            Node[] parts = split(t.left, k);
            t.left = parts[1];
            return new Node[] {parts[0], update(t)};
        }
        Node[] parts = split(t.right, k - size(t.left) - 1);
        t.right = parts[0];
        return new Node[] {update(t), parts[1]};
    }

    private static Node merge(Node a, Node b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        if (a.priority > b.priority) {
            a.right = merge(a.right, b);
            return update(a);
        }
        b.left = merge(a, b.left);
        return update(b);
    }
}
