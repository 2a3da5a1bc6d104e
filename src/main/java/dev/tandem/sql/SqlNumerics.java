package dev.tandem.sql;

import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeUtil;

/**
 * Refuses a division of a {@code sum} of {@code bigint}s: PostgreSQL's is a {@code numeric} (so
 * {@code sum(a) / count(a)} has a fraction), Tandem's a {@code bigint}. It is "not supported" with the cast
 * that makes it plain. (A sum of {@code integer}s or {@code smallint}s is a {@code bigint} in both, its
 * quotient an integer's.)
 */
final class SqlNumerics {

    private SqlNumerics() {
    }

    /** Throws "not supported" when {@code rel} or any of its inputs computes such arithmetic. */
    static void check(RelNode rel) {
        switch (rel) {
            case Project p -> p.getProjects().forEach(e -> expr(e, List.of(p.getInput())));
            case Filter f -> expr(f.getCondition(), List.of(f.getInput()));
            case Join j -> expr(j.getCondition(), List.of(j.getLeft(), j.getRight()));
            default -> {
            }
        }
        for (RelNode in : rel.getInputs()) {
            check(in);
        }
    }

    private static void expr(RexNode e, List<RelNode> inputs) {
        if (!(e instanceof RexCall call)) {
            return;
        }
        SqlKind kind = call.getKind();
        if (kind == SqlKind.PLUS || kind == SqlKind.MINUS || kind == SqlKind.TIMES || kind == SqlKind.DIVIDE || kind == SqlKind.MOD) {
            if (kind == SqlKind.DIVIDE && call.getOperands().stream().allMatch(o -> SqlTypeUtil.isIntType(o.getType()))
                    && call.getOperands().stream().anyMatch(o -> numericSum(o, inputs))) {
                throw SqlException.notSupported("dividing a sum of bigints (PostgreSQL's sum of a bigint is a numeric, so its quotient keeps"
                        + " the fraction: write CAST(sum(x) AS double precision) / ...)");
            }
        }
        for (RexNode o : call.getOperands()) {
            expr(o, inputs);
        }
    }

    /** Whether {@code e}, over the concatenated columns of {@code inputs}, is a sum of bigints or computed from one. */
    private static boolean numericSum(RexNode e, List<RelNode> inputs) {
        return switch (e) {
            case RexInputRef ref -> {
                int i = ref.getIndex();
                for (RelNode in : inputs) {
                    int n = in.getRowType().getFieldCount();
                    if (i < n) {
                        yield column(in, i);
                    }
                    i -= n;
                }
                yield false;
            }
            case RexCall c -> switch (c.getKind()) {
                case PLUS, MINUS, TIMES, DIVIDE, MOD, MINUS_PREFIX, PLUS_PREFIX, CASE, COALESCE, NULLIF ->
                        c.getOperands().stream().anyMatch(o -> numericSum(o, inputs));
                default -> false;
            };
            default -> false;
        };
    }

    /** Whether output column {@code i} of {@code rel} is a sum of bigints (or computed from one). */
    private static boolean column(RelNode rel, int i) {
        return switch (rel) {
            case Aggregate a -> {
                int groups = a.getGroupCount();
                if (i < groups) {
                    yield column(a.getInput(), a.getGroupSet().nth(i));
                }
                AggregateCall call = a.getAggCallList().get(i - groups);
                SqlKind kind = call.getAggregation().getKind();
                if (call.getArgList().size() != 1) {
                    yield false;
                }
                int arg = call.getArgList().get(0);
                if (kind == SqlKind.SUM || kind == SqlKind.SUM0) {
                    yield a.getInput().getRowType().getFieldList().get(arg).getType().getSqlTypeName() == org.apache.calcite.sql.type.SqlTypeName.BIGINT;
                }
                yield (kind == SqlKind.MIN || kind == SqlKind.MAX) && column(a.getInput(), arg);
            }
            case Project p -> numericSum(p.getProjects().get(i), List.of(p.getInput()));
            case Filter f -> column(f.getInput(), i);
            case Sort s -> column(s.getInput(), i);
            case Join j -> j.getJoinType().projectsRight()
                    ? numericSum(new RexInputRef(i, j.getRowType().getFieldList().get(i).getType()), List.of(j.getLeft(), j.getRight()))
                    : column(j.getLeft(), i);
            case SetOp s -> s.getInputs().stream().anyMatch(in -> column(in, i));
            default -> false;
        };
    }
}
