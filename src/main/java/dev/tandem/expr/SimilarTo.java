package dev.tandem.expr;

/**
 * SQL's {@code SIMILAR TO} pattern as PostgreSQL 15 reads it ({@code similar_to_escape}): rewritten as one of its
 * regular expressions, anchored at both ends, which {@link Regex} then matches. {@code %} is {@code .*}, {@code _}
 * is {@code .}, {@code (} a non-capturing group, {@code \ . ^ $} literal; {@code | * + ? {m,n} ( ) [...]} keep
 * their regular-expression meanings; the escape character ({@code \} unless given, none when empty) makes the
 * next character literal (an escaped letter is a regular-expression escape, {@code \d}), and an escaped
 * {@code "} separates the parts {@code substring} would return.
 */
public final class SimilarTo {

    private static final int DEFAULT_ESCAPE = '\\';

    private SimilarTo() {
    }

    /** The regular expression of {@code pattern} with {@code escape} (null: {@code \}; empty: none). */
    public static String toRegex(String pattern, String escape) {
        int esc = DEFAULT_ESCAPE;
        if (escape != null) {
            int n = escape.codePointCount(0, escape.length());
            if (n > 1) {
                throw new EvalError(EvalError.Code.INVALID_ESCAPE_SEQUENCE, "invalid escape string: an ESCAPE string must be empty or one character");
            }
            esc = n == 0 ? -1 : escape.codePointAt(0);
        }
        StringBuilder r = new StringBuilder(pattern.length() + 12).append("^(?:");
        boolean afterEscape = false;
        boolean inClass = false;
        int quotes = 0;
        for (int i = 0; i < pattern.length(); ) {
            int c = pattern.codePointAt(i);
            i += Character.charCount(c);
            if (afterEscape) {
                if (c == '"' && !inClass) {
                    if (quotes >= 2) {
                        throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: more than two escape-double-quote separators in a SIMILAR TO pattern"
                                + " (PostgreSQL refuses them with 2200C)");
                    }
                    r.append(quotes == 0 ? "){1,1}?(" : "){1,1}(?:");
                    quotes++;
                } else {
                    r.append('\\').appendCodePoint(c);
                }
                afterEscape = false;
            } else if (c == esc) {
                afterEscape = true;
            } else if (inClass) {
                if (c == '\\') {
                    r.append('\\');
                }
                r.appendCodePoint(c);
                if (c == ']') {
                    inClass = false;
                }
            } else if (c == '[') {
                r.append('[');
                inClass = true;
            } else if (c == '%') {
                r.append(".*");
            } else if (c == '_') {
                r.append('.');
            } else if (c == '(') {
                r.append("(?:");
            } else if (c == '\\' || c == '.' || c == '^' || c == '$') {
                r.append('\\').appendCodePoint(c);
            } else {
                r.appendCodePoint(c);
            }
        }
        return r.append(")$").toString();
    }
}
