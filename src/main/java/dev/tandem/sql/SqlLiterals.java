package dev.tandem.sql;

import dev.tandem.row.DatumType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A query's literals lifted into parameters, so that statements that differ only in their constants
 * (what the simple protocol sends: {@code SELECT v FROM t WHERE id = 42}) share one plan, its
 * <em>shape</em> ({@code SELECT v FROM t WHERE id = $1}), planned once and bound with each statement's
 * values.
 *
 * <p>Lifting must not change what a statement means, so only literals whose parameter keeps their
 * meaning are lifted: integers that fit a {@code bigint} and plain {@code '...'} strings, outside
 * {@code ORDER BY} and {@code GROUP BY} lists (where an integer is a column's ordinal). A statement with
 * parameters of its own, with more than {@link #MAX_LIFTED} literals, or that is not a {@code SELECT},
 * is not lifted. The planner has the last word:
 * {@link SqlEngine} uses a shape only when each lifted parameter was typed as its literal's type
 * ({@link #types}), else it plans the statement as written.
 */
final class SqlLiterals {

    /** A shape: the text with {@code $1..$n} in place of the literals, their values and their types, in order. */
    record Lifted(String shape, List<Object> values, List<DatumType> types) {
    }

    /**
     * The most literals a shape lifts: a statement with more (a long IN list) is planned as written, as
     * its shape would seldom come again.
     */
    static final int MAX_LIFTED = 100;

    /** Words after which a list of ordinals or expressions ends. */
    private static final Set<String> CLAUSES = Set.of("limit", "offset", "having", "fetch", "union", "intersect", "except", "window",
            "for", "where", "from", "as");

    private SqlLiterals() {
    }

    /** The statement's shape, or null when nothing is lifted (see the class comment for what is). */
    static Lifted lift(String sql) {
        List<SqlLexer.Token> tokens;
        try {
            tokens = new SqlLexer(sql).tokens();
        } catch (SqlException e) {
            return null;
        }
        if (tokens.isEmpty() || !tokens.get(0).is("select")) {
            return null;
        }
        StringBuilder shape = new StringBuilder(sql.length());
        List<Object> values = new ArrayList<>();
        List<DatumType> types = new ArrayList<>();
        int copied = 0;
        int depth = 0;
        // the paren depth of the ORDER BY or GROUP BY list being read, or -1
        int ordinalsAt = -1;
        for (int i = 0; i < tokens.size(); i++) {
            SqlLexer.Token t = tokens.get(i);
            switch (t.kind()) {
                case PARAM -> {
                    return null;
                }
                case PUNCT -> {
                    if (t.isPunct("(")) {
                        depth++;
                    } else if (t.isPunct(")")) {
                        if (ordinalsAt == depth) {
                            ordinalsAt = -1;
                        }
                        depth--;
                    }
                }
                case WORD -> {
                    if (t.is("by") && i > 0 && (tokens.get(i - 1).is("order") || tokens.get(i - 1).is("group"))) {
                        ordinalsAt = depth;
                    } else if (ordinalsAt == depth && CLAUSES.contains(t.text())) {
                        ordinalsAt = -1;
                    }
                }
                case NUMBER, STRING -> {
                    Object value = ordinalsAt >= 0 ? null : liftable(sql, t);
                    if (value != null) {
                        if (values.size() == MAX_LIFTED) {
                            return null;
                        }
                        int end = t.end();
                        shape.append(sql, copied, t.offset()).append('$').append(values.size() + 1);
                        copied = end;
                        values.add(value);
                        types.add(value instanceof Long ? DatumType.INT64 : DatumType.STRING);
                    }
                }
                default -> {
                }
            }
        }
        if (values.isEmpty()) {
            return null;
        }
        shape.append(sql, copied, sql.length());
        return new Lifted(shape.toString(), List.copyOf(values), List.copyOf(types));
    }

    /** The literal's value when it may be lifted: an integer within a bigint, or a plain string; else null. */
    private static Object liftable(String sql, SqlLexer.Token t) {
        int end = t.end();
        // a letter right before (E'...', U&'...', x1) or right after (1e5, 'a'b) makes it something else
        if (t.offset() > 0 && isWordChar(sql.charAt(t.offset() - 1)) || end < sql.length() && isWordChar(sql.charAt(end))) {
            return null;
        }
        if (t.kind() == SqlLexer.Kind.STRING) {
            return sql.charAt(t.offset()) == '\'' || sql.charAt(t.offset()) == '$' ? t.text() : null;
        }
        String digits = t.text();
        for (int k = 0; k < digits.length(); k++) {
            if (!Character.isDigit(digits.charAt(k))) {
                return null;
            }
        }
        if (digits.length() > 18) {
            return null;
        }
        return Long.parseLong(digits);
    }

    private static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '&' || c == '.';
    }

}
