package dev.tandem.sql;

import dev.tandem.expr.Expr;
import dev.tandem.expr.Mfp;
import dev.tandem.plan.Plan;
import dev.tandem.row.DatumType;
import dev.tandem.sql.RelTranslator.Translated;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Function;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;

/**
 * A tree of inner joins, with the {@code WHERE} above it, planned as one: {@code FROM a, b, c WHERE ...} (or its
 * {@code JOIN ... ON} spelling) is a list of inputs and a list of conjuncts, which Calcite leaves as a cross product
 * under a filter. Here each conjunct of one input filters that input before any join; the inputs are joined in an
 * order that follows the equalities between them, so each join has keys wherever the conditions give it some (a
 * cross product only between inputs no equality connects, after the connected ones are joined); each other conjunct
 * is applied at the first join where all its inputs are present. The columns come out in the {@code FROM} order.
 *
 * <p>Without statistics the order is the {@code FROM} order where it has a choice: each group of inputs connected by
 * equalities starts at its first input and takes, at each step, the first input an equality connects to those joined
 * so far. A constant conjunct (Tandem's functions are immutable) comes first in every input's filter, which stops at
 * it: a {@code WHERE} or {@code ON} holding a FALSE or NULL conjunct, folded to FALSE, evaluates no other condition,
 * as PostgreSQL's planner folds it. A condition on the time (a temporal filter) applies to the joined rows.
 */
final class InnerJoins {

    private InnerJoins() {
    }

    /** Whether {@code rel} is the top of an inner-join tree this plans: an inner join, or a filter right above one. */
    static boolean applies(RelNode rel) {
        return rel instanceof Filter f ? f.getVariablesSet().isEmpty() && inner(f.getInput()) : inner(rel);
    }

    private static boolean inner(RelNode rel) {
        return rel instanceof Join j && j.getJoinType() == JoinRelType.INNER && j.getVariablesSet().isEmpty();
    }

    /** A condition of the tree, over the columns of the join it belongs to, which start at {@code offset} of the whole. */
    private record Condition(RexNode rex, int offset, int width) {
    }

    /** {@code top} (see {@link #applies}), its inputs translated by {@code translate}. */
    static Translated translate(RelNode top, Function<RelNode, Translated> translate, RexTranslator rex) {
        List<RelNode> leaves = new ArrayList<>();
        List<Condition> conditions = new ArrayList<>();
        List<RexNode> temporal = new ArrayList<>();
        if (top instanceof Filter f) {
            // a condition on the time (a temporal filter) applies to the join's rows, after it
            List<RexNode> plain = new ArrayList<>();
            for (RexNode c : RelOptUtil.conjunctions(f.getCondition())) {
                (rex.allowsTemporalFilters() && TemporalFilters.readsTime(c) ? temporal : plain).add(c);
            }
            RexBuilder builder = f.getCluster().getRexBuilder();
            conditions.add(new Condition(RexUtil.composeConjunction(builder, plain), 0, f.getRowType().getFieldCount()));
            flatten(f.getInput(), 0, leaves, conditions);
            if (!temporal.isEmpty()) {
                return TemporalFilters.filter(RexUtil.composeConjunction(builder, temporal),
                        joinedTree(leaves, conditions, translate, rex), rex);
            }
        } else {
            flatten(top, 0, leaves, conditions);
        }
        return joinedTree(leaves, conditions, translate, rex);
    }

    /** The inputs {@code leaves} of a tree and its {@code conditions}, joined. */
    private static Translated joinedTree(List<RelNode> leaves, List<Condition> conditions, Function<RelNode, Translated> translate,
            RexTranslator rex) {
        List<Translated> inputs = new ArrayList<>();
        List<DatumType> all = new ArrayList<>();
        int[] offsets = new int[leaves.size() + 1];
        for (int i = 0; i < leaves.size(); i++) {
            Translated t = translate.apply(leaves.get(i));
            inputs.add(t);
            all.addAll(t.types());
            offsets[i + 1] = all.size();
        }
        List<Expr> conjuncts = new ArrayList<>();
        for (Condition c : conditions) {
            Expr e = PgConstantFolding.condition(rex.rex(c.rex(), all.subList(c.offset(), c.offset() + c.width())));
            for (Expr conjunct : RelTranslator.conjuncts(e)) {
                conjuncts.add(RelJoins.shift(conjunct, i -> i + c.offset()));
            }
        }
        return joined(inputs, offsets, conjuncts, order(leaves.size(), offsets, conjuncts, all), all);
    }

    private static void flatten(RelNode rel, int offset, List<RelNode> leaves, List<Condition> conditions) {
        if (inner(rel)) {
            Join j = (Join) rel;
            conditions.add(new Condition(j.getCondition(), offset, j.getRowType().getFieldCount()));
            flatten(j.getLeft(), offset, leaves, conditions);
            flatten(j.getRight(), offset + j.getLeft().getRowType().getFieldCount(), leaves, conditions);
        } else {
            leaves.add(rel);
        }
    }

    /** A conjunct of several inputs, and which. */
    private record Spanning(Expr conjunct, BitSet inputs) {
    }

    /**
     * The inputs joined in {@code order}: each conjunct of one input filters it, each of several at the first join with
     * all its inputs, each of none (a constant) every input before anything else; the columns put back in the inputs' order.
     */
    private static Translated joined(List<Translated> inputs, int[] offsets, List<Expr> conjuncts, int[] order, List<DatumType> all) {
        List<List<Expr>> own = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            own.add(new ArrayList<>());
        }
        List<Spanning> spanning = new ArrayList<>();
        for (Expr c : conjuncts) {
            BitSet in = inputsOf(c, offsets);
            if (in.isEmpty()) {
                // a constant (Tandem's functions are all immutable; a FALSE or NULL conjunct made the whole condition
                // FALSE): first in each input's filter, which stops at it
                for (int i = 0; i < inputs.size(); i++) {
                    own.get(i).addFirst(c);
                }
            } else if (in.cardinality() == 1) {
                int i = in.nextSetBit(0);
                own.get(i).add(RelJoins.shift(c, col -> col - offsets[i]));
            } else {
                spanning.add(new Spanning(c, in));
            }
        }
        // where each column of the whole is in the joined layout so far
        int[] at = new int[all.size()];
        BitSet joined = new BitSet();
        Translated result = null;
        for (int i : order) {
            Translated input = filtered(inputs.get(i), own.get(i));
            int base = result == null ? 0 : result.types().size();
            for (int col = offsets[i]; col < offsets[i + 1]; col++) {
                at[col] = base + col - offsets[i];
            }
            joined.set(i);
            if (result == null) {
                result = input;
                continue;
            }
            List<Expr> now = new ArrayList<>();
            for (var it = spanning.iterator(); it.hasNext(); ) {
                Spanning c = it.next();
                if (c.inputs().get(i) && contains(joined, c.inputs())) {
                    now.add(RelJoins.shift(c.conjunct(), col -> at[col]));
                    it.remove();
                }
            }
            result = RelJoins.innerJoin(result, input, now);
        }
        List<Expr> back = new ArrayList<>();
        for (int col = 0; col < all.size(); col++) {
            back.add(Expr.col(at[col]));
        }
        return result.project(back);
    }

    /**
     * The join order: the inputs equalities connect, in groups, each from its first input, taking at each step the
     * first input an equality connects to the group so far; the groups one after another.
     */
    private static int[] order(int n, int[] offsets, List<Expr> conjuncts, List<DatumType> all) {
        List<int[]> edges = new ArrayList<>();
        for (Expr c : conjuncts) {
            int[] key = RelJoins.keyPair(c, all);
            if (key != null) {
                edges.add(new int[] {inputOf(key[0], offsets), inputOf(key[1], offsets)});
            }
        }
        int[] order = new int[n];
        int k = 0;
        BitSet placed = new BitSet();
        for (int start = 0; start < n; start++) {
            if (placed.get(start)) {
                continue;
            }
            // a new group: no input placed before it is connected to one not placed yet
            for (int next = start; next >= 0; next = connected(placed, edges)) {
                placed.set(next);
                order[k++] = next;
            }
        }
        return order;
    }

    /** The first input not yet placed that an equality connects to one placed (of the group being placed); -1 if none. */
    private static int connected(BitSet placed, List<int[]> edges) {
        int best = -1;
        for (int[] e : edges) {
            for (int side = 0; side < 2; side++) {
                int to = e[1 - side];
                if (placed.get(e[side]) && !placed.get(to) && (best < 0 || to < best)) {
                    best = to;
                }
            }
        }
        return best;
    }

    private static Translated filtered(Translated t, List<Expr> conds) {
        return conds.isEmpty() ? t : new Translated(new Plan.MapFilterProject(t.plan(), Mfp.filter(conds)), t.types());
    }

    private static boolean contains(BitSet set, BitSet sub) {
        BitSet rest = (BitSet) sub.clone();
        rest.andNot(set);
        return rest.isEmpty();
    }

    private static int inputOf(int col, int[] offsets) {
        int i = 0;
        while (offsets[i + 1] <= col) {
            i++;
        }
        return i;
    }

    private static BitSet inputsOf(Expr e, int[] offsets) {
        BitSet in = new BitSet();
        collect(e, offsets, in);
        return in;
    }

    private static void collect(Expr e, int[] offsets, BitSet in) {
        switch (e) {
            case Expr.Col c -> in.set(inputOf(c.index(), offsets));
            case Expr.Lit l -> {
            }
            case Expr.Call c -> c.args().forEach(a -> collect(a, offsets, in));
        }
    }
}
