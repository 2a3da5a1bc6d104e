package dev.tandem.sql;

import dev.tandem.controller.DeclaredType;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;

/**
 * The uses of a {@code character(n)[]} column a query may make. Its elements are kept without their trailing spaces, as a
 * {@code character(n)}'s value is, so comparing arrays, grouping, ordering, {@code @>}, {@code <@}, {@code &&},
 * {@code array_length} and {@code cardinality} answer as PostgreSQL's {@code bpchar} elements do, and the column itself is
 * written blank-padded; what would see an element itself (a subscript, {@code unnest}, {@code array_to_string}, the array
 * functions, casts) is refused, as is {@code x op ANY/ALL} of anything but a string literal without trailing spaces (which
 * compares alike as text and as {@code bpchar}).
 */
final class BpcharArrays {

    private static final Set<SqlKind> ALLOWED = Set.of(SqlKind.EQUALS, SqlKind.NOT_EQUALS, SqlKind.LESS_THAN, SqlKind.LESS_THAN_OR_EQUAL,
            SqlKind.GREATER_THAN, SqlKind.GREATER_THAN_OR_EQUAL, SqlKind.IS_DISTINCT_FROM, SqlKind.IS_NOT_DISTINCT_FROM, SqlKind.IS_NULL,
            SqlKind.IS_NOT_NULL);

    private static final Set<String> FUNCTIONS = Set.of("ARRAY_LENGTH", "CARDINALITY", ArrayFunctions.CONTAINS, ArrayFunctions.CONTAINED,
            ArrayFunctions.OVERLAP, PgJsonbOperators.CONTAINS, PgJsonbOperators.CONTAINED);

    private BpcharArrays() {
    }

    /** Refuses {@code node}'s use of a {@code character(n)[]} field of its inputs other than those above. */
    static void check(RelNode node) {
        switch (node) {
            case Project p -> p.getProjects().forEach(e -> check(e, node));
            case Filter f -> check(f.getCondition(), node);
            case Join j -> check(j.getCondition(), node);
            case TableScan s -> {
            }
            case Sort s -> {
            }
            case Aggregate a -> {
                for (org.apache.calcite.rel.core.AggregateCall call : a.getAggCallList()) {
                    for (int arg : call.getArgList()) {
                        if (call.getAggregation().getKind() != SqlKind.COUNT && charArray(a.getInput(), arg)) {
                            throw refused(call.getAggregation().getName() + " of");
                        }
                    }
                }
            }
            default -> {
                // a node whose output columns are not known to pass the column through (unnest, a lateral join, a set operation...)
                for (RelNode in : node.getInputs()) {
                    for (int i = 0; i < in.getRowType().getFieldCount(); i++) {
                        if (charArray(in, i)) {
                            throw refused(node.getRelTypeName() + " over");
                        }
                    }
                }
            }
        }
    }

    private static void check(RexNode e, RelNode node) {
        e.accept(new RexVisitorImpl<Void>(true) {
            @Override
            public Void visitCall(RexCall call) {
                if (call.getKind() == SqlKind.SOME || call.getKind() == SqlKind.ALL) {
                    checkQuantified(call, node);
                }
                List<RexNode> ops = call.getOperands();
                for (int k = 0; k < ops.size(); k++) {
                    if (ops.get(k) instanceof RexInputRef r && field(node, r.getIndex())) {
                        allowed(call, k);
                    }
                }
                return super.visitCall(call);
            }
        });
    }

    /** Refuses {@code call} of a {@code character(n)[]} as its operand {@code k} unless it is one of the uses above. */
    private static void allowed(RexCall call, int k) {
        String name = call.getOperator().getName().toUpperCase(java.util.Locale.ROOT);
        if (ALLOWED.contains(call.getKind()) || FUNCTIONS.contains(name)) {
            return;
        }
        if ((call.getKind() == SqlKind.SOME || call.getKind() == SqlKind.ALL) && k > 0 || name.equals(ArrayFunctions.OPERAND)) {
            return;
        }
        throw refused(call.getOperator().getName() + " of");
    }

    /** Refuses {@code x op ANY/ALL (c)} of a {@code character(n)[]} {@code c} unless {@code x} is a string literal without trailing spaces. */
    private static void checkQuantified(RexCall call, RelNode node) {
        RexNode array = call.getOperands().get(1);
        RexNode inner = array instanceof RexCall w && w.getOperator().getName().equals(ArrayFunctions.OPERAND) ? w.getOperands().get(0) : array;
        if (!(inner instanceof RexInputRef r) || !field(node, r.getIndex())) {
            return;
        }
        RexNode x = call.getOperands().get(0);
        while (x instanceof RexCall c && c.getKind() == SqlKind.CAST) {
            x = c.getOperands().get(0);
        }
        if (!(x instanceof RexLiteral l) || !(l.getValue2() instanceof String s) || s.endsWith(" ")) {
            throw SqlException.notSupported("x op ANY/ALL (c) of a character(n)[] column c but of a string literal without trailing spaces"
                    + " (PostgreSQL compares a text x as text and a varchar or unknown one as character)");
        }
    }

    /** Whether field {@code i} of {@code node}'s inputs (in order) is a {@code character(n)[]} column. */
    private static boolean field(RelNode node, int i) {
        int k = i;
        for (RelNode in : node.getInputs()) {
            int n = in.getRowType().getFieldCount();
            if (k < n) {
                return charArray(in, k);
            }
            k -= n;
        }
        return false;
    }

    private static boolean charArray(RelNode rel, int i) {
        DeclaredType d = BpcharSemantics.declared(rel, i);
        return d != null && d.kind() == DeclaredType.Kind.BPCHAR_ARRAY;
    }

    private static SqlException refused(String what) {
        return SqlException.notSupported(what + " a character(n)[] column (PostgreSQL's elements are blank-padded, Tandem keeps them"
                + " without their trailing spaces: read, compare, group or order the array itself)");
    }
}
