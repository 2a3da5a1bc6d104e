package dev.tandem.sql;

import java.util.List;

/**
 * SQL's {@code x AT TIME ZONE zone} written as PostgreSQL's function {@code timezone(zone, x)}, which Calcite's parser
 * reads: {@code x} is the operand just before ({@code ts}, {@code t.ts}, a literal, a call, a parenthesized expression),
 * {@code zone} the one just after (a literal, a column, a parameter, a call or a parenthesized expression).
 */
final class AtTimeZone {

    private AtTimeZone() {
    }

    /** {@code sql} with each {@code AT TIME ZONE} outside quotes and comments written as a call of {@code timezone}. */
    static String rewrite(String sql) {
        if (!sql.toLowerCase(java.util.Locale.ROOT).contains("zone")) {
            return sql;
        }
        String text = sql;
        while (true) {
            List<SqlLexer.Token> t = new SqlLexer(text).tokens();
            int at = -1;
            for (int i = 1; i + 3 < t.size(); i++) {
                if (t.get(i).is("at") && t.get(i + 1).is("time") && t.get(i + 2).is("zone")) {
                    at = i;
                    break;
                }
            }
            if (at < 0) {
                return text;
            }
            int from = PgCasts.operandStart(text, t, at - 1);
            int zoneEnd = zoneEnd(text, t, at + 3);
            text = text.substring(0, t.get(from).offset()) + "timezone(" + text.substring(t.get(at + 3).offset(), zoneEnd) + ", "
                    + text.substring(t.get(from).offset(), t.get(at - 1).end()) + ")" + text.substring(zoneEnd);
        }
    }

    /** The offset just past the zone operand starting at token {@code k}. */
    private static int zoneEnd(String sql, List<SqlLexer.Token> t, int k) {
        SqlLexer.Token first = t.get(k);
        int last = k;
        if (first.isPunct("(")) {
            last = close(sql, t, k);
        } else if (first.kind() == SqlLexer.Kind.STRING || first.kind() == SqlLexer.Kind.PARAM || first.isName()
                && !(first.kind() == SqlLexer.Kind.WORD && PgCasts.KEYWORDS.contains(first.text()))) {
            while (t.get(last + 1).isPunct(".") && t.get(last + 2).isName()) {
                last += 2;
            }
            if (first.isName() && t.get(last + 1).isPunct("(")) {
                last = close(sql, t, last + 1);
            }
        } else {
            int[] lc = SqlLexer.lineColumn(sql, first.offset());
            throw new SqlException(SqlException.SYNTAX, "syntax error at or near \"" + sql.substring(first.offset(), first.end()) + "\"", lc[0], lc[1]);
        }
        return t.get(last).end();
    }

    private static int close(String sql, List<SqlLexer.Token> t, int open) {
        int depth = 0;
        for (int j = open; j < t.size(); j++) {
            if (t.get(j).isPunct("(")) {
                depth++;
            } else if (t.get(j).isPunct(")") && --depth == 0) {
                return j;
            }
        }
        throw new SqlException(SqlException.SYNTAX, "syntax error: unbalanced parentheses after AT TIME ZONE");
    }
}
