package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Rewrites a join on {@code l IS NOT DISTINCT FROM r} (NULL matching NULL, as decorrelation joins on
 * correlation values) into an equi-join: each side gets two key columns, {@code x IS NULL} and
 * {@code COALESCE(x, zero)}, never NULL, equal on both sides exactly when the values are not distinct.
 * The join keeps its type and columns (the added ones are projected away), and Tandem maintains it as
 * any equi-join instead of comparing every pair of rows.
 */
final class NullSafeKeys {

    private NullSafeKeys() {
    }

    static RelNode rewrite(RelNode rel) {
        return rel.accept(new RelHomogeneousShuttle() {
            @Override
            public RelNode visit(RelNode other) {
                RelNode n = super.visit(other);
                return n instanceof Join j ? join(j) : n;
            }
        });
    }

    private static RelNode join(Join join) {
        int nl = join.getLeft().getRowType().getFieldCount();
        int nr = join.getRight().getRowType().getFieldCount();
        List<int[]> pairs = new ArrayList<>();
        List<RexNode> rest = new ArrayList<>();
        for (RexNode c : RelOptUtil.conjunctions(join.getCondition())) {
            if (c.isA(SqlKind.IS_NOT_DISTINCT_FROM) && c instanceof RexCall call
                    && call.getOperands().get(0) instanceof RexInputRef a && call.getOperands().get(1) instanceof RexInputRef b
                    && (a.getIndex() < nl) != (b.getIndex() < nl)
                    && a.getType().getSqlTypeName() == b.getType().getSqlTypeName() && hasZero(a.getType())) {
                int l = Math.min(a.getIndex(), b.getIndex());
                pairs.add(new int[] {l, Math.max(a.getIndex(), b.getIndex()) - nl});
            } else {
                rest.add(c);
            }
        }
        if (pairs.isEmpty()) {
            return join;
        }
        RexBuilder rb = join.getCluster().getRexBuilder();
        int k = 2 * pairs.size();
        RelNode left = withKeys(rb, join.getLeft(), pairs.stream().map(p -> p[0]).toList());
        RelNode right = withKeys(rb, join.getRight(), pairs.stream().map(p -> p[1]).toList());
        List<RexNode> cond = new ArrayList<>();
        RexShuttle shift = new RexShuttle() {
            @Override
            public RexNode visitInputRef(RexInputRef ref) {
                return ref.getIndex() < nl ? ref : new RexInputRef(ref.getIndex() + k, ref.getType());
            }
        };
        for (RexNode c : rest) {
            cond.add(c.accept(shift));
        }
        List<RelDataType> lt = RelOptUtil.getFieldTypeList(left.getRowType());
        List<RelDataType> rt = RelOptUtil.getFieldTypeList(right.getRowType());
        for (int i = 0; i < k; i++) {
            cond.add(rb.makeCall(SqlStdOperatorTable.EQUALS, new RexInputRef(nl + i, lt.get(nl + i)),
                    new RexInputRef(nl + k + nr + i, rt.get(nr + i))));
        }
        Join keyed = join.copy(join.getTraitSet(), rb.makeCall(SqlStdOperatorTable.AND, cond), left, right, join.getJoinType(),
                join.isSemiJoinDone());
        List<RexNode> out = new ArrayList<>();
        List<RelDataType> types = RelOptUtil.getFieldTypeList(keyed.getRowType());
        for (int i = 0; i < nl; i++) {
            out.add(new RexInputRef(i, types.get(i)));
        }
        if (join.getJoinType().projectsRight()) {
            for (int i = 0; i < nr; i++) {
                out.add(new RexInputRef(nl + k + i, types.get(nl + k + i)));
            }
        }
        return LogicalProject.create(keyed, List.of(), out, join.getRowType().getFieldNames(), java.util.Set.of());
    }

    /**
     * Whether values of {@code type} have a zero to stand for NULL in a key: a number's, a string's, a time's, or the
     * empty array (an array's NULL is told apart by the {@code IS NULL} key); a pair of another type stays a condition.
     */
    private static boolean hasZero(RelDataType type) {
        SqlTypeName n = type.getSqlTypeName();
        return SqlTypeName.NUMERIC_TYPES.contains(n) || SqlTypeName.CHAR_TYPES.contains(n) || SqlTypeName.BINARY_TYPES.contains(n)
                || SqlTypeName.DATETIME_TYPES.contains(n) || SqlTypeName.INTERVAL_TYPES.contains(n) || n == SqlTypeName.BOOLEAN
                || n == SqlTypeName.ARRAY;
    }

    private static RexNode zero(RexBuilder rb, RelDataType type) {
        RelDataType notNull = rb.getTypeFactory().createTypeWithNullability(type, false);
        return type.getSqlTypeName() == SqlTypeName.ARRAY ? rb.makeCall(notNull, SqlStdOperatorTable.ARRAY_VALUE_CONSTRUCTOR, List.of())
                : rb.makeZeroLiteral(notNull);
    }

    /** {@code in}'s columns, then for each of {@code cols} its {@code IS NULL} and its value or zero. */
    private static RelNode withKeys(RexBuilder rb, RelNode in, List<Integer> cols) {
        List<RexNode> exprs = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<RelDataType> types = RelOptUtil.getFieldTypeList(in.getRowType());
        for (int i = 0; i < types.size(); i++) {
            exprs.add(new RexInputRef(i, types.get(i)));
            names.add(in.getRowType().getFieldNames().get(i));
        }
        for (int c : cols) {
            RexNode ref = new RexInputRef(c, types.get(c));
            exprs.add(rb.makeCall(SqlStdOperatorTable.IS_NULL, ref));
            exprs.add(rb.makeCall(SqlStdOperatorTable.COALESCE, ref, zero(rb, types.get(c))));
            names.add("$null" + names.size());
            names.add("$key" + names.size());
        }
        return LogicalProject.create(in, List.of(), exprs, names, java.util.Set.of());
    }
}
