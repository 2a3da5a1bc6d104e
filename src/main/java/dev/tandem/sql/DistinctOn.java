package dev.tandem.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.RelFactories;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * PostgreSQL's {@code SELECT DISTINCT ON (e, ...) items FROM ... ORDER BY ...}: of each set of rows with the
 * same values of the {@code e}s, the first in the {@code ORDER BY} order (with no {@code ORDER BY}, the first
 * in the order of the whole row, so the choice is the same on every run).
 *
 * <p>Calcite's parser has no {@code DISTINCT ON}. {@link #rewrite} cuts it from the statement's text and adds
 * each {@code e} as a select item named {@code $distinct_on$<n>}, after the others; once the query is
 * validated and converted, {@link #apply} keeps the first row of each partition of those items
 * ({@code row_number() OVER (PARTITION BY them ORDER BY the query's order) = 1}), then orders and limits as
 * the query does, and leaves them out of the result. Only the statement's first {@code SELECT} may say
 * {@code DISTINCT ON} (not a subquery's or a set operation's: {@code 0A000}); as in PostgreSQL the
 * {@code ORDER BY}, when there is one, must begin with the {@code DISTINCT ON} expressions ({@code 42P10}).
 */
final class DistinctOn {

    static final String MARKER = "$distinct_on$";

    private DistinctOn() {
    }

    /** {@code sql} with its first SELECT's {@code DISTINCT ON (...)} made marked select items; other text as it is. */
    static String rewrite(String sql) {
        if (!containsIgnoreCase(sql, "distinct")) {
            return sql;
        }
        List<SqlLexer.Token> tokens = new SqlLexer(sql).tokens();
        int first = -1;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).is("select")) {
                if (first < 0) {
                    first = i;
                } else if (distinctOnAt(tokens, i)) {
                    throw SqlException.notSupported("DISTINCT ON in a subquery, a set operation or a WITH query (only in the statement's query)");
                }
            }
        }
        if (first < 0 || !distinctOnAt(tokens, first)) {
            return sql;
        }
        int open = first + 3;
        // the ON list: expressions split at the commas outside parentheses
        List<String> on = new ArrayList<>();
        int depth = 0;
        int from = tokens.get(open).end();
        int close = -1;
        for (int i = open + 1; i < tokens.size() && close < 0; i++) {
            SqlLexer.Token t = tokens.get(i);
            if (t.kind() == SqlLexer.Kind.END) {
                break;
            }
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")") && depth > 0) {
                depth--;
            } else if (depth == 0 && (t.isPunct(",") || t.isPunct(")"))) {
                on.add(sql.substring(from, t.offset()).trim());
                from = t.end();
                if (t.isPunct(")")) {
                    close = i;
                }
            }
        }
        if (close < 0 || on.stream().anyMatch(String::isEmpty)) {
            throw new SqlException(SqlException.SYNTAX, "syntax error in DISTINCT ON (expected expressions in parentheses)");
        }
        for (String e : on) {
            if (e.matches("\\d+")) {
                throw SqlException.notSupported("DISTINCT ON a select item's position (write the expression)");
            }
        }
        // the end of the select list: FROM (or the end of the query) outside parentheses
        depth = 0;
        int end = -1;
        for (int i = close + 1; i < tokens.size() && end < 0; i++) {
            SqlLexer.Token t = tokens.get(i);
            if (t.isPunct("(")) {
                depth++;
            } else if (t.isPunct(")")) {
                if (depth == 0) {
                    end = t.offset();
                }
                depth--;
            } else if (depth == 0 && (t.kind() == SqlLexer.Kind.END || t.isPunct(";") || t.is("from") || t.is("where") || t.is("group")
                    || t.is("having") || t.is("window") || t.is("order") || t.is("limit") || t.is("offset") || t.is("fetch"))) {
                end = t.offset();
            } else if (depth == 0 && (t.is("union") || t.is("intersect") || t.is("except"))) {
                throw SqlException.notSupported("DISTINCT ON in a set operation");
            }
        }
        StringBuilder items = new StringBuilder();
        for (int k = 0; k < on.size(); k++) {
            items.append(", (").append(on.get(k)).append(") AS \"").append(MARKER).append(k + 1).append("\" ");
        }
        return sql.substring(0, tokens.get(first + 1).offset()) + sql.substring(tokens.get(close).end(), end).stripTrailing() + items
                + sql.substring(end);
    }

    private static boolean distinctOnAt(List<SqlLexer.Token> tokens, int select) {
        return select + 3 < tokens.size() && tokens.get(select + 1).is("distinct") && tokens.get(select + 2).is("on")
                && tokens.get(select + 3).isPunct("(");
    }

    private static boolean containsIgnoreCase(String s, String word) {
        return s.toLowerCase(java.util.Locale.ROOT).contains(word);
    }

    /** {@code root} with {@code DISTINCT ON} applied by its marked fields, which it leaves out; {@code root} itself when it has none. */
    static RelRoot apply(RelRoot root) {
        List<Integer> on = new ArrayList<>();
        List<java.util.Map.Entry<Integer, String>> visible = new ArrayList<>();
        for (java.util.Map.Entry<Integer, String> f : root.fields) {
            if (f.getValue().startsWith(MARKER)) {
                on.add(f.getKey());
            } else {
                visible.add(f);
            }
        }
        if (on.isEmpty()) {
            return root;
        }
        Sort sort = root.rel instanceof Sort s ? s : null;
        RelNode input = sort != null ? sort.getInput() : root.rel;
        RelCollation collation = root.collation;
        List<RelFieldCollation> order = collation.getFieldCollations();
        if (!order.isEmpty() && input instanceof Project p) {
            // PostgreSQL: the ORDER BY begins with the DISTINCT ON expressions, in any order among themselves
            java.util.Set<String> onExprs = new java.util.HashSet<>();
            for (int i : on) {
                onExprs.add(p.getProjects().get(i).toString());
            }
            java.util.Set<String> leading = new java.util.HashSet<>();
            for (int k = 0; k < Math.min(on.size(), order.size()); k++) {
                leading.add(p.getProjects().get(order.get(k).getFieldIndex()).toString());
            }
            if (order.size() < on.size() || !leading.equals(onExprs)) {
                throw new SqlException(SqlState.INVALID_COLUMN_REFERENCE, "SELECT DISTINCT ON expressions must match initial ORDER BY expressions");
            }
        }
        RelBuilder b = RelFactories.LOGICAL_BUILDER.create(input.getCluster(), null);
        b.push(input);
        List<RexNode> partition = new ArrayList<>();
        for (int i : on) {
            partition.add(b.field(i));
        }
        List<RexNode> within = new ArrayList<>();
        if (order.isEmpty()) {
            for (java.util.Map.Entry<Integer, String> f : visible) {
                within.add(b.field(f.getKey()));
            }
        } else {
            for (RelFieldCollation c : order) {
                within.add(orderKey(b, c));
            }
        }
        int arity = input.getRowType().getFieldCount();
        RexNode rowNumber = b.aggregateCall(SqlStdOperatorTable.ROW_NUMBER).over().partitionBy(partition).orderBy(within).toRex();
        b.projectPlus(b.alias(rowNumber, MARKER + "row"));
        b.filter(b.equals(b.field(arity), b.literal(1)));
        List<RexNode> sortKeys = new ArrayList<>();
        for (RelFieldCollation c : order) {
            sortKeys.add(orderKey(b, c));
        }
        RexNode offset = sort != null ? sort.offset : null;
        RexNode fetch = sort != null ? sort.fetch : null;
        if (!sortKeys.isEmpty() || offset != null || fetch != null) {
            b.sortLimit(offset, fetch, sortKeys);
        }
        return new RelRoot(b.build(), root.validatedRowType, root.kind, com.google.common.collect.ImmutableList.copyOf(visible), collation, root.hints);
    }

    private static RexNode orderKey(RelBuilder b, RelFieldCollation c) {
        RexNode key = b.field(c.getFieldIndex());
        if (c.getDirection().isDescending()) {
            key = b.desc(key);
        }
        return c.nullDirection == RelFieldCollation.NullDirection.FIRST ? b.nullsFirst(key)
                : c.nullDirection == RelFieldCollation.NullDirection.LAST ? b.nullsLast(key) : key;
    }
}
