package dev.tandem.sql;

import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * PostgreSQL's precedence of a comma in {@code FROM}: looser than any {@code JOIN}, so {@code FROM a, b RIGHT JOIN c ON
 * ...} is {@code a, (b RIGHT JOIN c ON ...)}, whose {@code ON} sees {@code b} and {@code c} only. Calcite's parser
 * chains commas and joins from the left, {@code (a, b) RIGHT JOIN c}: a right or full join then pads the rows of
 * {@code c} with NULLs for {@code a} too (a row where PostgreSQL's answer has none when {@code a} is empty), and an
 * {@code ON} may name {@code a}, which PostgreSQL refuses. This rewrites, in place, each such join to PostgreSQL's
 * grouping before validation.
 *
 * <p>A join whose right side may read the inputs before it ({@code LATERAL}, a function in {@code FROM}) is left as
 * it is.
 */
final class CommaPrecedence {

    private CommaPrecedence() {
    }

    /** Regroups the joins of every {@code FROM} in {@code node} (see the class comment). */
    static void rewrite(SqlNode node) {
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlSelect select && select.getFrom() != null) {
                    select.setFrom(regroup(select.getFrom()));
                }
                return super.visit(call);
            }
        });
    }

    private static final java.util.regex.Pattern MISSING = java.util.regex.Pattern.compile("missing FROM-clause entry for table \"(.*)\"");

    /**
     * {@code e} in PostgreSQL's words when the table it says no {@code FROM} names is an input of the statement, only not
     * one the name's place can see (an {@code ON} naming an input before a comma): "invalid reference to FROM-clause entry".
     */
    static SqlException hidden(SqlException e, SqlNode statement) {
        java.util.regex.Matcher m = MISSING.matcher(e.getMessage());
        if (!m.matches()) {
            return e;
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        statement.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlSelect select && select.getFrom() != null) {
                    inputs(select.getFrom(), names);
                }
                return super.visit(call);
            }
        });
        return names.contains(m.group(1))
                ? new SqlException(e.state(), "invalid reference to FROM-clause entry for table \"" + m.group(1) + "\"", e.line(), e.column())
                : e;
    }

    /** The names the inputs of a {@code FROM} go by: their aliases, or their tables' names. */
    private static void inputs(SqlNode from, java.util.Set<String> names) {
        if (from instanceof SqlJoin j) {
            inputs(j.getLeft(), names);
            inputs(j.getRight(), names);
        } else if (from.getKind() == SqlKind.AS) {
            names.add(((SqlBasicCall) from).operand(1).toString());
        } else if (from instanceof SqlIdentifier id) {
            names.add(id.names.get(id.names.size() - 1));
        }
    }

    private static SqlNode regroup(SqlNode from) {
        if (!(from instanceof SqlJoin join)) {
            return from;
        }
        join.setLeft(regroup(join.getLeft()));
        join.setRight(regroup(join.getRight()));
        if (join.getJoinType() == JoinType.COMMA || !(join.getLeft() instanceof SqlJoin left) || left.getJoinType() != JoinType.COMMA
                || !plain(join.getRight())) {
            return join;
        }
        // (x, y) JOIN r ON c  ->  x, (y JOIN r ON c)
        SqlJoin inner = new SqlJoin(join.getParserPosition(), left.getRight(), join.isNaturalNode(), join.getJoinTypeNode(),
                join.getRight(), join.getConditionTypeNode(), join.getCondition());
        return new SqlJoin(join.getParserPosition(), left.getLeft(), SqlLiteral.createBoolean(false, join.getParserPosition()),
                JoinType.COMMA.symbol(join.getParserPosition()), inner, JoinConditionType.NONE.symbol(join.getParserPosition()), null);
    }

    /** Whether a join's right side cannot read the inputs before it: a table, a join of such, or a subquery not LATERAL. */
    private static boolean plain(SqlNode right) {
        SqlNode n = right.getKind() == SqlKind.AS ? ((SqlBasicCall) right).operand(0) : right;
        return n instanceof SqlIdentifier || n instanceof SqlSelect || n instanceof SqlJoin j && plain(j.getLeft()) && plain(j.getRight())
                || n.getKind() == SqlKind.ORDER_BY || n.getKind() == SqlKind.VALUES || n.getKind() == SqlKind.WITH
                || n.getKind() == SqlKind.UNION || n.getKind() == SqlKind.EXCEPT || n.getKind() == SqlKind.INTERSECT;
    }
}
