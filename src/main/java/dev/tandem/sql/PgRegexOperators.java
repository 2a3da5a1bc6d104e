package dev.tandem.sql;

import java.util.List;
import java.util.Set;

/**
 * PostgreSQL's regular-expression match operators {@code ~ ~* !~ !~*}, which Calcite does not parse,
 * rewritten as a {@code [NOT] SIMILAR TO ... ESCAPE} whose escape is a {@link #MARKER} (a string no
 * valid {@code SIMILAR TO} has: an escape is one character) naming the operator; {@link PgFunctions}
 * translates it back. Calcite's {@code SIMILAR TO} binds as PostgreSQL's {@code ~} does against
 * comparisons, {@code ||}, arithmetic and the logical operators, given a pattern that is a primary (a
 * literal, a parameter, a name, a function call, a parenthesized expression); a pattern followed by
 * another operator ({@code s ~ 'a' || 'b'}: PostgreSQL reads {@code (s ~ 'a') || 'b'}) is refused.
 */
final class PgRegexOperators {

    /** The start of the escape that marks a rewritten operator; the operator follows it. */
    static final String MARKER = "\u0001";

    private static final Set<String> AFTER_PATTERN = Set.of("|", "+", "-", "*", "/", "%", "^", "[", ".", "~", "!", "@", "#", "&");

    private PgRegexOperators() {
    }

    /** {@code sql} with every {@code ~}-operator outside quotes and comments written as a marked SIMILAR TO. */
    static String rewrite(String sql) {
        if (sql.indexOf('~') < 0) {
            return sql;
        }
        String text = sql;
        int searchFrom = 0;
        while (true) {
            List<SqlLexer.Token> t = new SqlLexer(text).tokens();
            int k = -1;
            for (int i = 1; i < t.size(); i++) {
                if (t.get(i).isPunct("~") && t.get(i).offset() >= searchFrom) {
                    k = i;
                    break;
                }
            }
            if (k < 0) {
                return text;
            }
            boolean negated = t.get(k - 1).isPunct("!") && t.get(k - 1).offset() == t.get(k).offset() - 1;
            int first = negated ? k - 1 : k;
            boolean insensitive = t.get(k + 1).isPunct("*") && t.get(k + 1).offset() == t.get(k).offset() + 1;
            int last = insensitive ? k + 1 : k;
            SqlLexer.Token before = first > 0 ? t.get(first - 1) : null;
            if (before == null || before.kind() == SqlLexer.Kind.WORD && PgCasts.KEYWORDS.contains(before.text()) || !(before.isName() || before.kind() == SqlLexer.Kind.NUMBER || before.kind() == SqlLexer.Kind.STRING
                    || before.kind() == SqlLexer.Kind.PARAM || before.isPunct(")") || before.isPunct("?"))) {
                // a prefix ~ (bitwise not), or ~~: left for the parser to refuse
                searchFrom = t.get(k).offset() + 1;
                continue;
            }
            int end = primaryEnd(t, last + 1);
            if (end < 0) {
                searchFrom = t.get(k).offset() + 1;
                continue;
            }
            SqlLexer.Token next = t.get(end);
            if (next.kind() == SqlLexer.Kind.PUNCT && AFTER_PATTERN.contains(next.text()) || next.is("collate")) {
                throw SqlException.notSupported("a regular-expression match whose pattern is followed by another operator; parenthesize the pattern");
            }
            String op = (negated ? "!" : "") + "~" + (insensitive ? "*" : "");
            int patternStart = t.get(last + 1).offset();
            int patternEnd = next.offset();
            String rewritten = text.substring(0, t.get(first).offset()) + (negated ? " NOT SIMILAR TO " : " SIMILAR TO ")
                    + text.substring(patternStart, patternEnd) + " ESCAPE '" + MARKER + op + "' " + text.substring(patternEnd);
            searchFrom = t.get(first).offset();
            text = rewritten;
        }
    }

    /** The index of the token after the primary starting at token {@code i}, or -1 when none starts there. */
    private static int primaryEnd(List<SqlLexer.Token> t, int i) {
        SqlLexer.Token s = t.get(i);
        if (s.kind() == SqlLexer.Kind.STRING || s.kind() == SqlLexer.Kind.PARAM || s.kind() == SqlLexer.Kind.NUMBER || s.isPunct("?")) {
            return i + 1;
        }
        if (s.isPunct("(")) {
            return SqlLexer.afterClosing(t, i);
        }
        if (s.isName()) {
            int j = i + 1;
            while (t.get(j).isPunct(".") && t.get(j + 1).isName()) {
                j += 2;
            }
            return t.get(j).isPunct("(") ? SqlLexer.afterClosing(t, j) : j;
        }
        return -1;
    }
}
