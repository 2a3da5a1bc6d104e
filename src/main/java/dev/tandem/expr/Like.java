package dev.tandem.expr;

/**
 * SQL {@code LIKE} as PostgreSQL matches it (its {@code like_match.c}), over code points: a pattern with an
 * {@code ESCAPE} is first written with {@code \} as its escape, then matched left to right, a {@code %}
 * trying each later position where the next literal matches. A pattern that ends in the escape
 * character is an error only when the match reaches it ({@code 'ab' LIKE 'ab\'} is false, {@code 'ab\'
 * LIKE 'ab\'} an error), as in PostgreSQL.
 */
final class Like {

    private static final int ESCAPE = '\\';

    /** What a match of a pattern's rest found: the text matches, it does not, or no later start can match either. */
    private enum Match { TRUE, FALSE, ABORT }

    private Like() {
    }

    /** Whether {@code text} matches {@code pattern} ({@code escape}: null for {@code \}); {@code insensitive} for ILIKE. */
    static boolean matches(String text, String pattern, String escape, boolean insensitive) {
        String p = escape == null ? pattern : withBackslash(pattern, escape);
        if (insensitive) {
            text = ExprEval.caseMapped(text, false);
            p = ExprEval.caseMapped(p, false);
        }
        return match(text.codePoints().toArray(), 0, p.codePoints().toArray(), 0) == Match.TRUE;
    }

    /** The pattern with {@code \} as its escape character; an empty escape makes every {@code \} literal. */
    private static String withBackslash(String pattern, String escape) {
        int n = escape.codePointCount(0, escape.length());
        if (n > 1) {
            throw new EvalError(EvalError.Code.INVALID_ESCAPE_SEQUENCE, "invalid escape string: an ESCAPE string must be empty or one character");
        }
        int e = n == 0 ? -1 : escape.codePointAt(0);
        StringBuilder b = new StringBuilder(pattern.length() + 4);
        boolean afterEscape = false;
        for (int i = 0; i < pattern.length(); ) {
            int c = pattern.codePointAt(i);
            i += Character.charCount(c);
            if (c == e && !afterEscape) {
                b.append('\\');
                afterEscape = true;
            } else if (c == ESCAPE) {
                b.append('\\');
                if (!afterEscape) {
                    b.append('\\');
                }
                afterEscape = false;
            } else {
                b.appendCodePoint(c);
                afterEscape = false;
            }
        }
        return b.toString();
    }

    private static Match match(int[] t, int ti, int[] p, int pi) {
        if (p.length - pi == 1 && p[pi] == '%') {
            return Match.TRUE;
        }
        while (ti < t.length && pi < p.length) {
            int c = p[pi];
            if (c == ESCAPE) {
                pi++;
                if (pi >= p.length) {
                    throw trailingEscape();
                }
                if (p[pi] != t[ti]) {
                    return Match.FALSE;
                }
            } else if (c == '%') {
                pi++;
                // any run of %s and N _s matches N or more characters: skip it, then try each start of the rest
                while (pi < p.length) {
                    if (p[pi] == '%') {
                        pi++;
                    } else if (p[pi] == '_') {
                        if (ti >= t.length) {
                            return Match.ABORT;
                        }
                        ti++;
                        pi++;
                    } else {
                        break;
                    }
                }
                if (pi >= p.length) {
                    return Match.TRUE;
                }
                int first;
                if (p[pi] == ESCAPE) {
                    if (pi + 1 >= p.length) {
                        throw trailingEscape();
                    }
                    first = p[pi + 1];
                } else {
                    first = p[pi];
                }
                for (; ti < t.length; ti++) {
                    if (t[ti] == first) {
                        Match m = match(t, ti, p, pi);
                        if (m != Match.FALSE) {
                            return m;
                        }
                    }
                }
                return Match.ABORT;
            } else if (c == '_') {
                ti++;
                pi++;
                continue;
            } else if (c != t[ti]) {
                return Match.FALSE;
            }
            ti++;
            pi++;
        }
        if (ti < t.length) {
            return Match.FALSE;
        }
        while (pi < p.length && p[pi] == '%') {
            pi++;
        }
        return pi >= p.length ? Match.TRUE : Match.ABORT;
    }

    private static EvalError trailingEscape() {
        return new EvalError(EvalError.Code.INVALID_ESCAPE_SEQUENCE, "LIKE pattern must not end with escape character");
    }
}
