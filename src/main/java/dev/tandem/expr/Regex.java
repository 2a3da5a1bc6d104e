package dev.tandem.expr;

import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PostgreSQL's regular expressions (its ARE syntax, in its default non-newline-sensitive mode and the C
 * locale's character classes) over the part of them Java's {@link Pattern} reads the same: literals,
 * {@code .} (any character, newline too), {@code * + ? {m} {m,} {m,n}} and their non-greedy forms,
 * {@code |}, groups {@code (...)} and {@code (?:...)}, lookaheads {@code (?=...)} and {@code (?!...)},
 * {@code ^} and {@code $} (start and end of the text: Java's {@code $} would also match before a final
 * newline, so it is written {@code \z}), bracket expressions with ranges and negation, the escapes
 * {@code \d \D \s \S \w \W \n \t \r \f} and a backslash before punctuation. Constructs the two read
 * differently, or Java does not have, are refused as not supported: POSIX classes ({@code [[:alpha:]]}),
 * back-references, other escapes ({@code \m \y \b}...), lookbehinds, embedded options, a {@code {} that is
 * not a bound, a {@code ]} first in a bracket expression. A replacement's match is the one PostgreSQL
 * chooses only when the pattern prefers the longest match at each start, so for {@code regexp_replace}
 * alternation and non-greedy quantifiers are refused too. Errors PostgreSQL reports ({@code invalid regular
 * expression: ...}, {@code invalid regular expression option}) are raised with its words.
 */
public final class Regex {

    private static final int CACHE = 4096;
    private static final ConcurrentHashMap<String, Object> COMPILED = new ConcurrentHashMap<>();

    private Regex() {
    }

    /**
     * Why {@code pattern} with {@code flags} is not supported ({@code replace}: as {@code regexp_replace}'s),
     * or null when it is, or when it is invalid (its evaluation then raises PostgreSQL's error).
     */
    public static String unsupported(String pattern, String flags, boolean replace) {
        try {
            compile(pattern, flags, replace);
            return null;
        } catch (EvalError e) {
            return e.code() == EvalError.Code.NOT_SUPPORTED ? e.getMessage().replaceFirst("^not supported: ", "") : null;
        }
    }

    /** The Java pattern reading {@code pattern} as PostgreSQL does under {@code flags} ({@code g i c}). */
    static Pattern compile(String pattern, String flags, boolean replace) {
        String key = (replace ? "r" : "m") + flags + "\u0000" + pattern;
        Object cached = COMPILED.get(key);
        if (cached == null) {
            try {
                cached = Pattern.compile(translate(pattern, replace), Pattern.DOTALL | (insensitive(flags, replace) ? Pattern.CASE_INSENSITIVE : 0));
            } catch (EvalError e) {
                cached = e;
            } catch (java.util.regex.PatternSyntaxException e) {
                cached = new EvalError(EvalError.Code.INVALID_REGULAR_EXPRESSION, "invalid regular expression: " + e.getDescription());
            }
            if (COMPILED.size() >= CACHE) {
                COMPILED.clear();
            }
            COMPILED.put(key, cached);
        }
        if (cached instanceof EvalError error) {
            throw error;
        }
        return (Pattern) cached;
    }

    /** PostgreSQL's {@code regexp_replace}: the first match (every match with flag {@code g}) replaced. */
    static String replace(String text, String pattern, String replacement, String flags) {
        Matcher m = compile(pattern, flags, true).matcher(text);
        boolean global = flags.indexOf('g') >= 0;
        StringBuilder b = new StringBuilder();
        int last = 0;
        while (m.find()) {
            b.append(text, last, m.start());
            substitute(b, m, replacement);
            last = m.end();
            if (!global) {
                break;
            }
        }
        return b.append(text, last, text.length()).toString();
    }

    /** The replacement with {@code \1}..{@code \9} (a group's text, empty when it matched nothing), {@code \&} and {@code \\}. */
    private static void substitute(StringBuilder b, Matcher m, String r) {
        for (int i = 0; i < r.length(); i++) {
            char c = r.charAt(i);
            if (c != '\\' || i + 1 >= r.length()) {
                b.append(c);
                continue;
            }
            char d = r.charAt(i + 1);
            if (d >= '1' && d <= '9') {
                int g = d - '0';
                if (g <= m.groupCount() && m.group(g) != null) {
                    b.append(m.group(g));
                }
                i++;
            } else if (d == '&') {
                b.append(m.group());
                i++;
            } else if (d == '\\') {
                b.append('\\');
                i++;
            } else {
                b.append('\\');
            }
        }
    }

    private static boolean insensitive(String flags, boolean replace) {
        boolean insensitive = false;
        for (int i = 0; i < flags.length(); i++) {
            char f = flags.charAt(i);
            switch (f) {
                case 'i' -> insensitive = true;
                case 'c' -> insensitive = false;
                case 'g' -> {
                    if (!replace) {
                        throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "invalid regular expression option: regexp_like() does not support the \"global\" option");
                    }
                }
                case 'b', 'e', 'm', 'n', 'p', 'q', 's', 't', 'w', 'x' -> throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: the regular-expression option \"" + f + "\"");
                default -> throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "invalid regular expression option: \"" + f + "\"");
            }
        }
        return insensitive;
    }

    private static EvalError notSupported(String what) {
        return new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: " + what + " in a regular expression");
    }

    private static EvalError invalid(String why) {
        return new EvalError(EvalError.Code.INVALID_REGULAR_EXPRESSION, "invalid regular expression: " + why);
    }

    /** What may come next: nothing to quantify, an atom, a greedy quantifier, a non-greedy one. */
    private enum After { NOTHING, ATOM, GREEDY, LAZY }

    private static String translate(String p, boolean replace) {
        StringBuilder out = new StringBuilder(p.length() + 8);
        After after = After.NOTHING;
        int depth = 0;
        int i = 0;
        while (i < p.length()) {
            int c = p.codePointAt(i);
            i += Character.charCount(c);
            switch (c) {
                case '\\' -> {
                    if (i >= p.length()) {
                        throw invalid("invalid escape \\ sequence");
                    }
                    i = escape(p, i, out);
                    after = After.ATOM;
                }
                case '[' -> {
                    i = bracket(p, i, out);
                    after = After.ATOM;
                }
                case '(' -> {
                    if (p.startsWith("?", i)) {
                        if (p.startsWith("?:", i) || p.startsWith("?=", i) || p.startsWith("?!", i)) {
                            out.append('(').append(p, i, i + 2);
                            i += 2;
                        } else {
                            throw notSupported("(?" + (i + 1 < p.length() ? p.charAt(i + 1) : "") + " (lookbehinds and embedded options)");
                        }
                    } else {
                        out.append('(');
                    }
                    depth++;
                    after = After.NOTHING;
                }
                case ')' -> {
                    if (depth == 0) {
                        throw invalid("parentheses () not balanced");
                    }
                    depth--;
                    out.append(')');
                    after = After.ATOM;
                }
                case '*', '+', '?', '{' -> {
                    String q = c == '{' ? bound(p, i) : String.valueOf((char) c);
                    i += q.length() - 1;
                    if (c == '?' && after == After.GREEDY) {
                        if (replace) {
                            throw notSupported("a non-greedy quantifier (its match differs in regexp_replace)");
                        }
                        after = After.LAZY;
                    } else if (after != After.ATOM) {
                        throw invalid("quantifier operand invalid");
                    } else {
                        after = After.GREEDY;
                    }
                    out.append(q);
                }
                case '|' -> {
                    if (replace) {
                        throw notSupported("alternation (|: PostgreSQL prefers the longest match, Java the first alternative)");
                    }
                    out.append('|');
                    after = After.NOTHING;
                }
                case '^' -> {
                    out.append('^');
                    after = After.NOTHING;
                }
                case '$' -> {
                    out.append("\\z");
                    after = After.NOTHING;
                }
                case '.' -> {
                    out.append('.');
                    after = After.ATOM;
                }
                default -> {
                    literal(out, c);
                    after = After.ATOM;
                }
            }
        }
        if (depth != 0) {
            throw invalid("parentheses () not balanced");
        }
        return out.toString();
    }

    private static void literal(StringBuilder out, int c) {
        if (c < 128 && !Character.isLetterOrDigit(c) && c != ' ') {
            out.append('\\');
        }
        out.appendCodePoint(c);
    }

    /** A bound {@code {m}}, {@code {m,}} or {@code {m,n}} starting just after {@code {} at {@code i}, with its brace. */
    private static String bound(String p, int i) {
        java.util.regex.Matcher m = Pattern.compile("\\{(\\d{1,4})(,(\\d{1,4})?)?\\}").matcher(p);
        if (!m.find(i - 1) || m.start() != i - 1) {
            throw notSupported("a { that is not a bound {m,n}");
        }
        int lo = Integer.parseInt(m.group(1));
        int hi = m.group(3) == null ? lo : Integer.parseInt(m.group(3));
        if (lo > 255 || hi > 255 || (m.group(3) != null && lo > hi)) {
            throw invalid("invalid repetition count(s)");
        }
        return m.group();
    }

    /** Appends the escape whose letter is at {@code i}; the index after it. */
    private static int escape(String p, int i, StringBuilder out) {
        int d = p.codePointAt(i);
        if ("dDsSwWntrf".indexOf(d) >= 0) {
            out.append('\\').appendCodePoint(d);
        } else if (d < 128 && !Character.isLetterOrDigit(d)) {
            out.append('\\').appendCodePoint(d);
        } else if (d >= 128) {
            out.appendCodePoint(d);
        } else {
            throw notSupported("the escape \\" + Character.toString(d));
        }
        return i + Character.charCount(d);
    }

    /** Appends the bracket expression whose body starts at {@code i}; the index after its {@code ]}. */
    private static int bracket(String p, int i, StringBuilder out) {
        out.append('[');
        if (p.startsWith("^", i)) {
            out.append('^');
            i++;
        }
        if (p.startsWith("]", i)) {
            throw notSupported("a ] first in a bracket expression");
        }
        while (i < p.length()) {
            int c = p.codePointAt(i);
            i += Character.charCount(c);
            switch (c) {
                case ']' -> {
                    out.append(']');
                    return i;
                }
                case '[' -> throw notSupported("a [ in a bracket expression (POSIX classes such as [[:alpha:]])");
                case '\\' -> {
                    if (i >= p.length()) {
                        throw invalid("brackets [] not balanced");
                    }
                    i = escape(p, i, out);
                }
                case '&' -> out.append("\\&");
                default -> out.appendCodePoint(c);
            }
        }
        throw invalid("brackets [] not balanced");
    }
}
