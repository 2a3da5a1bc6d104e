package dev.tandem.sql;

import java.util.Locale;
import java.util.Set;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Readies each {@code LATERAL (subquery)} of a parsed query for Calcite's decorrelation, which turns it into joins
 * with the subquery grouped or ranked by the outer row's correlation columns, and refuses the shapes it cannot
 * turn into joins exactly.
 *
 * <p>An aggregate without {@code GROUP BY} answers exactly one row per outer row, one over no rows included (count
 * 0, the other aggregates NULL); the decorrelated join keeps that row only when it is a left join, so such an item
 * joined by a comma, {@code CROSS JOIN} or {@code JOIN ... ON true} is made a {@code LEFT JOIN LATERAL ... ON true},
 * which answers the same rows. Refused ({@code 0A000}): a window function, a nested subquery in the item's
 * expressions or a subquery in its {@code FROM}, an aggregate without {@code GROUP BY} with {@code HAVING}, a
 * {@code LIMIT} or a join condition other than {@code true}, a set operation with such an aggregate or a
 * {@code LIMIT} in a branch, and a {@code LIMIT} or {@code OFFSET} that is not a literal.
 */
final class LateralSubqueries {

    /** The aggregate functions by name (lower case), Calcite's and PostgreSQL's. */
    private static final Set<String> AGGREGATES = Set.of("array_agg", "string_agg", "bool_and", "bool_or", "every", "json_agg", "jsonb_agg",
            "json_object_agg", "jsonb_object_agg", "bit_and", "bit_or", "bit_xor", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop",
            "var_samp", "count", "sum", "avg", "min", "max", "listagg", "any_value", "regr_count", "covar_pop", "covar_samp", "corr");

    private LateralSubqueries() {
    }

    /** Rewrites, in place, the joins of {@code node}'s one-row aggregating lateral items, or refuses an item (see the class comment). */
    static void prepare(SqlNode node) {
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call instanceof SqlJoin join) {
                    SqlNode query = lateralQuery(join.getRight());
                    if (query != null && check(query, call)) {
                        oneRowJoin(join);
                    }
                } else if (call.getKind() == SqlKind.LATERAL) {
                    SqlNode query = lateralQuery(call);
                    if (query != null) {
                        check(query, call);
                    }
                }
                return super.visit(call);
            }
        });
    }

    /** The subquery of the {@code LATERAL} item {@code item} (under its alias), or null when it is not one. */
    private static SqlNode lateralQuery(SqlNode item) {
        SqlNode n = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
        if (n.getKind() != SqlKind.LATERAL) {
            return null;
        }
        SqlNode inner = ((SqlCall) n).operand(0);
        inner = inner.getKind() == SqlKind.AS ? ((SqlCall) inner).operand(0) : inner;
        return SqlKind.QUERY.contains(inner.getKind()) ? inner : null;
    }

    /** Refuses {@code query} (at {@code at}) when it cannot be decorrelated exactly; whether it is a one-row aggregate. */
    private static boolean check(SqlNode query, SqlNode at) {
        String why = refusal(query, true);
        if (why != null) {
            SqlException e = SqlException.notSupported("LATERAL (subquery) with " + why);
            throw at.getParserPosition() == null || at.getParserPosition() == SqlParserPos.ZERO ? e
                    : e.at(at.getParserPosition().getLineNum(), at.getParserPosition().getColumnNum());
        }
        return query instanceof SqlSelect s && oneRow(s);
    }

    /** Why {@code query} is refused, or null; {@code top} when it is the item itself rather than a set operation's branch. */
    private static String refusal(SqlNode query, boolean top) {
        return switch (query) {
            case SqlOrderBy o -> {
                String limit = limitRefusal(o.fetch, o.offset);
                if (limit != null) {
                    yield limit;
                }
                if ((o.fetch != null || o.offset != null) && (!top || o.query instanceof SqlSelect s && oneRow(s))) {
                    yield o.query instanceof SqlSelect ? "an aggregate without GROUP BY and a LIMIT or OFFSET"
                            : "a LIMIT or OFFSET of a set operation in it";
                }
                yield refusal(o.query, top);
            }
            case SqlSelect s -> selectRefusal(s, top);
            case SqlCall c when c.getKind() == SqlKind.UNION || c.getKind() == SqlKind.INTERSECT || c.getKind() == SqlKind.EXCEPT -> {
                for (SqlNode branch : c.getOperandList()) {
                    String why = refusal(branch, false);
                    if (why != null) {
                        yield why;
                    }
                }
                yield null;
            }
            case SqlCall c when c.getKind() == SqlKind.VALUES -> c.getOperandList().stream().map(LateralSubqueries::expressionRefusal)
                    .filter(java.util.Objects::nonNull).findFirst().orElse(null);
            default -> "a " + query.getKind().lowerName.replace('_', ' ');
        };
    }

    private static String selectRefusal(SqlSelect s, boolean top) {
        String limit = limitRefusal(s.getFetch(), s.getOffset());
        if (limit != null) {
            return limit;
        }
        if (s.getWindowList() != null && !s.getWindowList().isEmpty() || s.getQualify() != null) {
            return "a window (a window function in a LATERAL subquery is not supported)";
        }
        for (SqlNode part : java.util.Arrays.asList(s.getSelectList(), s.getWhere(), s.getGroup(), s.getHaving())) {
            String why = part == null ? null : expressionRefusal(part);
            if (why != null) {
                return why;
            }
        }
        if (s.getFrom() != null) {
            String why = fromRefusal(s.getFrom());
            if (why != null) {
                return why;
            }
        }
        if (oneRow(s)) {
            if (s.getHaving() != null) {
                return "an aggregate without GROUP BY and HAVING (GROUP BY the rows' columns, or filter the aggregate above the join)";
            }
            if (!top) {
                return "an aggregate without GROUP BY in a branch of a set operation";
            }
            if (s.getFetch() != null || s.getOffset() != null) {
                return "an aggregate without GROUP BY and a LIMIT or OFFSET";
            }
        } else if (!top && (s.getFetch() != null || s.getOffset() != null)) {
            return "a LIMIT or OFFSET in a branch of a set operation";
        }
        return null;
    }

    /** Refuses a {@code LIMIT} or {@code OFFSET} other than an integer literal, which the decorrelation needs as a constant. */
    private static String limitRefusal(SqlNode fetch, SqlNode offset) {
        for (SqlNode n : java.util.Arrays.asList(fetch, offset)) {
            if (n instanceof SqlDynamicParam) {
                return "a parameter as its LIMIT or OFFSET (write the count as a literal)";
            }
            if (n != null && !(n instanceof SqlLiteral)) {
                return "a LIMIT or OFFSET that is not a literal";
            }
        }
        return null;
    }

    /** Why an expression of the item is refused: a window function or a nested subquery; else null. */
    private static String expressionRefusal(SqlNode part) {
        String[] found = {null};
        part.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (found[0] == null) {
                    if (SqlKind.QUERY.contains(call.getKind())) {
                        found[0] = "a nested subquery (a subquery inside a LATERAL subquery is not supported)";
                    } else if (call.getKind() == SqlKind.OVER) {
                        found[0] = "a window function (a window function in a LATERAL subquery is not supported)";
                    }
                }
                return found[0] == null ? super.visit(call) : null;
            }
        });
        return found[0];
    }

    /** Why the item's {@code FROM} is refused: a subquery that is not itself {@code LATERAL} (lateral ones are checked on their own). */
    private static String fromRefusal(SqlNode from) {
        return switch (from) {
            case SqlJoin j -> {
                String left = fromRefusal(j.getLeft());
                yield left != null ? left : fromRefusal(j.getRight());
            }
            case SqlCall c when c.getKind() == SqlKind.AS -> fromRefusal(c.operand(0));
            case SqlNode n when SqlKind.QUERY.contains(n.getKind()) -> "a subquery in its FROM (a LATERAL subquery in its FROM is supported)";
            default -> null;
        };
    }

    /** Whether {@code s} aggregates without {@code GROUP BY}: it answers exactly one row (before any HAVING). */
    private static boolean oneRow(SqlSelect s) {
        SqlNodeList group = s.getGroup();
        if (group != null && !group.isEmpty()) {
            return false;
        }
        if (group != null || s.getHaving() != null) {
            return true;
        }
        boolean[] found = {false};
        s.getSelectList().accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call.getKind() == SqlKind.OVER || SqlKind.QUERY.contains(call.getKind())) {
                    return null;
                }
                if (call.getOperator().isAggregator() || AGGREGATES.contains(call.getOperator().getName().toLowerCase(Locale.ROOT))) {
                    found[0] = true;
                    return null;
                }
                return super.visit(call);
            }
        });
        return found[0];
    }

    /**
     * Makes {@code join}, whose right side is a one-row aggregate, a {@code LEFT JOIN ... ON true}: the same rows,
     * and the join Calcite's decorrelation keeps the aggregate over no rows in. A join with another condition is refused.
     */
    private static void oneRowJoin(SqlJoin join) {
        JoinType type = join.getJoinType();
        boolean onTrue = join.getConditionType() == JoinConditionType.ON && join.getCondition() instanceof SqlLiteral l
                && l.getTypeName() == org.apache.calcite.sql.type.SqlTypeName.BOOLEAN && Boolean.TRUE.equals(l.getValueAs(Boolean.class));
        if ((type == JoinType.COMMA || type == JoinType.CROSS) && join.getConditionType() == JoinConditionType.NONE
                || (type == JoinType.INNER || type == JoinType.LEFT) && onTrue) {
            if (type != JoinType.LEFT) {
                SqlParserPos pos = join.getParserPosition();
                join.setOperand(2, JoinType.LEFT.symbol(pos));
                join.setOperand(4, JoinConditionType.ON.symbol(pos));
                join.setOperand(5, SqlLiteral.createBoolean(true, pos));
            }
            return;
        }
        SqlException e = SqlException.notSupported("a join condition other than true on a LATERAL subquery that aggregates without GROUP BY"
                + " (join it ON true and filter in WHERE)");
        throw join.getParserPosition() == null ? e : e.at(join.getParserPosition().getLineNum(), join.getParserPosition().getColumnNum());
    }

    private static final java.util.regex.Pattern UNGROUPED = java.util.regex.Pattern.compile("column \"([^.\"]+)\\.[^\"]+\" must appear.*");

    /**
     * {@code e}, or, when it is a grouping error ({@code 42803}) at a column of an outer {@code FROM} item inside an
     * aggregating {@code LATERAL} subquery of {@code parsed} (which PostgreSQL reads as a constant of each outer
     * row, and Calcite's validator as a column to group by), a refusal ({@code 0A000}) of that.
     */
    static SqlException outerGrouping(SqlException e, SqlNode parsed) {
        java.util.regex.Matcher m = UNGROUPED.matcher(e.getMessage() == null ? "" : e.getMessage());
        if (e.state() != SqlState.GROUPING_ERROR || e.line() <= 0 || !m.find()) {
            return e;
        }
        String qualifier = m.group(1);
        boolean[] outer = {false};
        parsed.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(SqlCall call) {
                if (call.getKind() == SqlKind.LATERAL && lateralQuery(call) instanceof SqlSelect s && s.getFrom() != null
                        && s.getParserPosition().overlaps(new SqlParserPos(e.line(), e.column())) && !names(s.getFrom()).contains(qualifier)) {
                    outer[0] = true;
                }
                return super.visit(call);
            }
        });
        return outer[0] ? new SqlException(SqlException.NOT_SUPPORTED, "not supported: a column of an outer FROM item (" + qualifier
                + ") outside the aggregates of an aggregating LATERAL subquery (compute with it above the join)", e.line(), e.column()) : e;
    }

    /** The names the items of {@code from} are read by: their aliases, or their tables' names. */
    private static Set<String> names(SqlNode from) {
        Set<String> out = new java.util.HashSet<>();
        switch (from) {
            case SqlJoin j -> {
                out.addAll(names(j.getLeft()));
                out.addAll(names(j.getRight()));
            }
            case SqlCall c when c.getKind() == SqlKind.AS -> out.add(c.operand(1).toString());
            case org.apache.calcite.sql.SqlIdentifier id -> out.add(id.names.get(id.names.size() - 1));
            default -> {
            }
        }
        return out;
    }
}
