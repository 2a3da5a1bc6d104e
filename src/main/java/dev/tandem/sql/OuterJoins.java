package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Outer joins on any condition. The translator takes an outer join on equalities between the sides
 * (plus, for a left or right join, conditions on the inner side); any other outer join is rewritten here
 * as the inner join on the condition, plus the rows of the outer side that match nothing, padded with
 * NULLs. Those are found as an anti-join against the distinct outer rows the inner join matched, on all
 * their columns with NULL matching NULL (an equi-join after {@link NullSafeKeys}): every part is a join,
 * a reduction or a union, so a view over it is maintained incrementally.
 */
final class OuterJoins {

    private OuterJoins() {
    }

    static RelNode rewrite(RelNode rel) {
        return rel.accept(new RelHomogeneousShuttle() {
            @Override
            public RelNode visit(RelNode other) {
                RelNode n = super.visit(other);
                return n instanceof Join j && j.getJoinType().isOuterJoin() && !translatable(j) ? outer(j) : n;
            }
        });
    }

    /** Whether the translator takes the join as it is (see the class comment). */
    private static boolean translatable(Join join) {
        int nl = join.getLeft().getRowType().getFieldCount();
        for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
            if (c.isA(SqlKind.EQUALS) && c instanceof RexCall call && call.getOperands().get(0) instanceof RexInputRef a
                    && call.getOperands().get(1) instanceof RexInputRef b && (a.getIndex() < nl) != (b.getIndex() < nl)
                    && a.getType().getSqlTypeName() == b.getType().getSqlTypeName()) {
                continue;
            }
            ImmutableBitSet used = RelOptUtil.InputFinder.bits(c);
            boolean rightOnly = used.isEmpty() || used.nextSetBit(0) >= nl;
            boolean leftOnly = used.isEmpty() || used.length() <= nl;
            if (join.getJoinType() == JoinRelType.LEFT && rightOnly || join.getJoinType() == JoinRelType.RIGHT && leftOnly) {
                continue;
            }
            return false;
        }
        return true;
    }

    private static RelNode outer(Join join) {
        RelBuilder b = RelFactories.LOGICAL_BUILDER.create(join.getCluster(), null);
        RelNode left = join.getLeft();
        RelNode right = join.getRight();
        int nl = left.getRowType().getFieldCount();
        int nr = right.getRowType().getFieldCount();
        RelNode inner = b.push(left).push(right).join(JoinRelType.INNER, join.getCondition()).build();
        List<RelNode> parts = new ArrayList<>();
        parts.add(inner);
        JoinRelType type = join.getJoinType();
        if (type == JoinRelType.LEFT || type == JoinRelType.FULL) {
            parts.add(unmatched(b, inner, left, 0, nl, nl, nr, true));
        }
        if (type == JoinRelType.RIGHT || type == JoinRelType.FULL) {
            parts.add(unmatched(b, inner, right, nl, nr, nl, nr, false));
        }
        for (RelNode p : parts) {
            b.push(RelOptUtil.createCastRel(p, join.getRowType(), true));
        }
        return b.union(true, parts.size()).build();
    }

    /**
     * The rows of {@code side} (columns {@code from .. from + n} of the inner join) that the inner join
     * matched to none, padded with NULLs on the other side ({@code leftSide}: the side is the join's left).
     */
    private static RelNode unmatched(RelBuilder b, RelNode inner, RelNode side, int from, int n, int nl, int nr, boolean leftSide) {
        List<RexNode> cols = new ArrayList<>();
        b.push(inner);
        for (int i = 0; i < n; i++) {
            cols.add(b.field(from + i));
        }
        b.project(cols).distinct();
        List<RexNode> marked = new ArrayList<>(b.fields());
        marked.add(b.literal(true));
        RelNode matched = b.project(marked).build();
        b.push(side).push(matched);
        List<RexNode> on = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            on.add(b.isNotDistinctFrom(b.field(2, 0, i), b.field(2, 1, i)));
        }
        b.join(JoinRelType.LEFT, on);
        b.filter(b.isNull(b.field(n + n)));
        List<RexNode> out = new ArrayList<>();
        RelNode other = leftSide ? inner.getInput(1) : inner.getInput(0);
        List<RexNode> nulls = new ArrayList<>();
        for (var f : other.getRowType().getFieldList()) {
            nulls.add(b.getRexBuilder().makeNullLiteral(b.getTypeFactory().createTypeWithNullability(f.getType(), true)));
        }
        List<RexNode> own = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            own.add(b.field(i));
        }
        if (leftSide) {
            out.addAll(own);
            out.addAll(nulls);
        } else {
            out.addAll(nulls);
            out.addAll(own);
        }
        return b.project(out).build();
    }
}
