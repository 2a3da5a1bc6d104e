package dev.tandem.sql;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * PostgreSQL's jsonb operators {@code -> ->> #> #>> @> <@ ? ?| ?&}, the array operator {@code &&}, and its casts to {@code jsonb}, which Calcite does not
 * parse, rewritten as calls of functions ({@link PgFunctions}) that {@link JsonbFunctions} translates. The operators
 * bind as PostgreSQL's "other" operators do: tighter than comparisons, looser than arithmetic, left to right; each
 * operand must be a primary (a name, a literal, a parameter, a call, a parenthesized expression, a negative number on
 * the right), and an operand that arithmetic or {@code ||} would bind first ({@code a || j -> 'k'}) is refused.
 */
final class PgJsonbOperators {

    static final String FIELD = "PG_JSONB_FIELD";
    static final String FIELD_TEXT = "PG_JSONB_FIELD_TEXT";
    static final String PATH = "PG_JSONB_PATH";
    static final String PATH_TEXT = "PG_JSONB_PATH_TEXT";
    static final String CONTAINS = "PG_JSONB_CONTAINS";
    static final String CONTAINED = "PG_JSONB_CONTAINED";
    static final String EXISTS = "PG_JSONB_EXISTS";
    /** Not an operator this rewrites: {@code ||} of a jsonb is typed by {@link PgUuidComparisons}, then translated with these. */
    static final String CONCAT = "PG_JSONB_CONCAT";

    /** Operators that bind tighter than the jsonb operators, refused right before the left operand or after the right one. */
    private static final Set<String> TIGHTER = Set.of("+", "-", "*", "/", "%", "^", "[", ".");
    /** Operators of PostgreSQL's "other" kind Tandem does not rewrite, refused right before the left operand. */
    private static final Set<String> OTHER = Set.of("|", "&", "#", "@", "~", "!", "?");

    /** Words a {@code ?} parameter may follow ({@code FETCH FIRST ? ROWS}), beside {@link PgCasts#KEYWORDS}. */
    private static final Set<String> PARAMETER_AFTER = Set.of("first", "next", "default", "fetch", "rows", "row", "array", "interval",
            "date", "timestamp", "timestamptz", "uuid", "jsonb", "text", "filter");

    /** Functions over {@code json} or aggregating jsonb, which Tandem does not compute. */
    private static final Set<String> REFUSED = Set.of("jsonb_agg", "jsonb_object_agg", "json_agg", "json_object_agg", "to_json",
            "json_build_object", "json_build_array", "json_typeof", "json_array_length", "json_object", "jsonb_object",
            "row_to_json", "array_to_json");

    private PgJsonbOperators() {
    }

    /** {@code sql} with each jsonb operator and cast to jsonb outside quotes and comments written as a function call. */
    static String rewrite(String sql) {
        String lower = sql.toLowerCase(Locale.ROOT);
        if (!lower.contains("json") && !sql.contains("->") && !sql.contains("#>") && !sql.contains("@>") && !sql.contains("<@")
                && !sql.contains("&&") && sql.indexOf('?') < 0) {
            return sql;
        }
        String text = sql;
        while (true) {
            List<SqlLexer.Token> t = new SqlLexer(text).tokens();
            String next = step(text, t);
            if (next == null) {
                return text;
            }
            text = next;
        }
    }

    /** {@code text} with its first jsonb operator or cast rewritten, or null when it has none. */
    private static String step(String text, List<SqlLexer.Token> t) {
        for (int i = 0; i < t.size(); i++) {
            SqlLexer.Token k = t.get(i);
            if (k.kind() == SqlLexer.Kind.WORD && (k.text().equals("json") || k.text().equals("jsonb"))) {
                boolean json = k.text().equals("json");
                if (i > 0 && t.get(i - 1).is("as") && i + 1 < t.size() && t.get(i + 1).isPunct(")")) {
                    int open = open(t, i + 1);
                    if (open > 0 && t.get(open - 1).is("cast")) {
                        if (json) {
                            throw SqlException.notSupported("type json (Tandem has jsonb)");
                        }
                        return text.substring(0, t.get(open - 1).offset()) + "pg_jsonb(" + text.substring(t.get(open).end(), t.get(i - 1).offset()).strip()
                                + ")" + text.substring(t.get(i + 1).end());
                    }
                }
                if (i + 1 < t.size() && t.get(i + 1).kind() == SqlLexer.Kind.STRING && (i == 0 || !t.get(i - 1).is("as"))) {
                    if (json) {
                        throw SqlException.notSupported("type json (Tandem has jsonb)");
                    }
                    return text.substring(0, k.offset()) + "pg_jsonb(" + text.substring(t.get(i + 1).offset(), t.get(i + 1).end()) + ")"
                            + text.substring(t.get(i + 1).end());
                }
            }
            if (k.kind() == SqlLexer.Kind.WORD && REFUSED.contains(k.text()) && i + 1 < t.size() && t.get(i + 1).isPunct("(")) {
                throw SqlException.notSupported(k.text() + "(...)" + (k.text().startsWith("jsonb") ? "" : " (Tandem has jsonb, not json)"));
            }
            if (k.kind() != SqlLexer.Kind.PUNCT || i == 0) {
                continue;
            }
            String op = operator(t, i);
            if (op == null) {
                continue;
            }
            SqlLexer.Token before = t.get(i - 1);
            boolean operandBefore = before.isName() && !(before.kind() == SqlLexer.Kind.WORD && PgCasts.KEYWORDS.contains(before.text()))
                    || before.kind() == SqlLexer.Kind.NUMBER || before.kind() == SqlLexer.Kind.STRING || before.kind() == SqlLexer.Kind.PARAM
                    || before.isPunct(")");
            if (op.equals(EXISTS) && (!operandBefore || before.kind() == SqlLexer.Kind.WORD && PARAMETER_AFTER.contains(before.text()))) {
                // a parameter, not the operator
                continue;
            }
            int width = switch (op) {
                case FIELD, PATH, CONTAINS, CONTAINED, ArrayFunctions.OVERLAP, ArrayFunctions.EXISTS_ANY, ArrayFunctions.EXISTS_ALL -> 2;
                case EXISTS -> 1;
                default -> 3;
            };
            if (!operandBefore) {
                throw SqlException.notSupported("a jsonb operator without a left operand");
            }
            int from = PgCasts.operandStart(text, t, i - 1);
            if (from > 0) {
                SqlLexer.Token prior = t.get(from - 1);
                if (prior.kind() == SqlLexer.Kind.PUNCT && (TIGHTER.contains(prior.text()) || OTHER.contains(prior.text()))) {
                    throw SqlException.notSupported("a jsonb operator whose left operand follows another operator; parenthesize it");
                }
            }
            int rightStart = i + width;
            int end = primaryEnd(t, rightStart);
            if (end < 0) {
                throw SqlException.notSupported("a jsonb operator whose right operand is not a name, a literal, a call or parenthesized;"
                        + " parenthesize it");
            }
            SqlLexer.Token after = t.get(end);
            if (after.kind() == SqlLexer.Kind.PUNCT && TIGHTER.contains(after.text()) && !(after.isPunct("-") && t.get(end + 1).isPunct(">")
                    && t.get(end + 1).offset() == after.end()) || after.is("collate")) {
                throw SqlException.notSupported("a jsonb operator whose right operand is followed by another operator; parenthesize it");
            }
            int rightEnd = t.get(end - 1).end();
            return text.substring(0, t.get(from).offset()) + op.toLowerCase(Locale.ROOT) + "(" + text.substring(t.get(from).offset(), t.get(i - 1).end())
                    + ", " + text.substring(t.get(rightStart).offset(), rightEnd) + ")" + text.substring(rightEnd);
        }
        return null;
    }

    /** The function of the jsonb (or array) operator starting at punctuation {@code i}, or null. */
    private static String operator(List<SqlLexer.Token> t, int i) {
        SqlLexer.Token a = t.get(i);
        SqlLexer.Token b = i + 1 < t.size() && t.get(i + 1).offset() == a.end() ? t.get(i + 1) : null;
        SqlLexer.Token c = b != null && i + 2 < t.size() && t.get(i + 2).offset() == b.end() ? t.get(i + 2) : null;
        boolean gt = b != null && b.isPunct(">");
        boolean gtgt = gt && c != null && c.isPunct(">");
        return switch (a.text()) {
            case "-" -> gtgt ? FIELD_TEXT : gt ? FIELD : null;
            case "#" -> gtgt ? PATH_TEXT : gt ? PATH : null;
            case "@" -> gt ? CONTAINS : null;
            case "<" -> b != null && b.isPunct("@") ? CONTAINED : null;
            case "?" -> b != null && b.isPunct("|") ? ArrayFunctions.EXISTS_ANY : b != null && b.isPunct("&") ? ArrayFunctions.EXISTS_ALL : EXISTS;
            case "&" -> b != null && b.isPunct("&") ? ArrayFunctions.OVERLAP : null;
            default -> null;
        };
    }

    /** The index of the token after the primary starting at token {@code i}, or -1 when none starts there. */
    private static int primaryEnd(List<SqlLexer.Token> t, int i) {
        SqlLexer.Token s = t.get(i);
        if (s.isPunct("-") && t.get(i + 1).kind() == SqlLexer.Kind.NUMBER) {
            return i + 2;
        }
        if (s.kind() == SqlLexer.Kind.STRING || s.kind() == SqlLexer.Kind.PARAM || s.kind() == SqlLexer.Kind.NUMBER || s.isPunct("?")) {
            return i + 1;
        }
        if (s.isPunct("(")) {
            return SqlLexer.afterClosing(t, i);
        }
        if (s.is("array") && t.get(i + 1).isPunct("[")) {
            int depth = 0;
            for (int j = i + 1; j < t.size(); j++) {
                if (t.get(j).isPunct("[")) {
                    depth++;
                } else if (t.get(j).isPunct("]") && --depth == 0) {
                    return j + 1;
                }
            }
            return -1;
        }
        if (s.isName() && !(s.kind() == SqlLexer.Kind.WORD && PgCasts.KEYWORDS.contains(s.text()))) {
            int j = i + 1;
            while (t.get(j).isPunct(".") && t.get(j + 1).isName()) {
                j += 2;
            }
            return t.get(j).isPunct("(") ? SqlLexer.afterClosing(t, j) : j;
        }
        return -1;
    }


    /** The index of the parenthesis opening the one closing at {@code close}, or -1. */
    private static int open(List<SqlLexer.Token> t, int close) {
        int depth = 0;
        for (int j = close; j >= 0; j--) {
            if (t.get(j).isPunct(")")) {
                depth++;
            } else if (t.get(j).isPunct("(") && --depth == 0) {
                return j;
            }
        }
        return -1;
    }
}
