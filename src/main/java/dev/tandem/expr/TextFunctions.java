package dev.tandem.expr;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * PostgreSQL's string functions over non-NULL arguments, as its {@code varlena.c} and {@code oracle_compat.c}
 * compute them: positions, lengths and counts are in code points, and a result longer than
 * {@link #MAX_LENGTH} code points is refused ({@code requested length too large}).
 */
final class TextFunctions {

    /** The longest string a function may make, in code points. */
    static final long MAX_LENGTH = 16L << 20;

    private TextFunctions() {
    }

    static Object apply(Func f, Object[] a) {
        return switch (f) {
            case STRPOS -> strpos((String) a[0], (String) a[1]);
            case REPLACE -> ((String) a[1]).isEmpty() ? a[0] : ((String) a[0]).replace((String) a[1], (String) a[2]);
            case SPLIT_PART -> splitPart((String) a[0], (String) a[1], (Long) a[2]);
            case BTRIM, LTRIM, RTRIM -> trim((String) a[0], a.length > 1 ? (String) a[1] : " ", f != Func.RTRIM, f != Func.LTRIM);
            case LPAD, RPAD -> pad((String) a[0], (Long) a[1], a.length > 2 ? (String) a[2] : " ", f == Func.LPAD);
            case LEFT -> left((String) a[0], (Long) a[1]);
            case RIGHT -> right((String) a[0], (Long) a[1]);
            case REPEAT -> repeat((String) a[0], (Long) a[1]);
            case REVERSE -> new StringBuilder((String) a[0]).reverse().toString();
            case INITCAP -> initcap((String) a[0]);
            case MD5 -> md5((String) a[0]);
            case STARTS_WITH -> ((String) a[0]).startsWith((String) a[1]);
            case TRANSLATE -> translate((String) a[0], (String) a[1], (String) a[2]);
            case REGEXP_LIKE -> Regex.compile((String) a[1], a.length > 2 ? (String) a[2] : "", false).matcher((String) a[0]).find();
            case SIMILAR_ESCAPE -> SimilarTo.toRegex((String) a[0], (String) a[1]);
            case REGEXP_REPLACE -> Regex.replace((String) a[0], (String) a[1], (String) a[2], a.length > 3 ? (String) a[3] : "");
            default -> throw new IllegalStateException("not a string function: " + f);
        };
    }

    /** PostgreSQL's {@code concat} ({@code sep} null) or {@code concat_ws}: the non-NULL arguments, joined. */
    static String join(String sep, Object[] values) {
        StringBuilder b = new StringBuilder();
        boolean first = true;
        for (Object v : values) {
            if (v == null) {
                continue;
            }
            if (!first && sep != null) {
                b.append(sep);
            }
            b.append((String) v);
            first = false;
        }
        return b.toString();
    }

    private static int length(String s) {
        return s.codePointCount(0, s.length());
    }

    private static long strpos(String s, String sub) {
        int at = s.indexOf(sub);
        return at < 0 ? 0 : s.codePointCount(0, at) + 1;
    }

    /** The {@code n}th field (from the end when negative) of {@code s} split at {@code delim}. */
    private static String splitPart(String s, String delim, long n) {
        if (n == 0) {
            throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "field position must not be zero");
        }
        if (s.isEmpty()) {
            return "";
        }
        if (delim.isEmpty()) {
            return n == 1 || n == -1 ? s : "";
        }
        java.util.List<String> fields = new java.util.ArrayList<>();
        int from = 0;
        for (int at = s.indexOf(delim); at >= 0; at = s.indexOf(delim, from)) {
            fields.add(s.substring(from, at));
            from = at + delim.length();
        }
        fields.add(s.substring(from));
        long i = n > 0 ? n - 1 : fields.size() + n;
        return i < 0 || i >= fields.size() ? "" : fields.get((int) i);
    }

    private static String trim(String s, String chars, boolean leading, boolean trailing) {
        int[] set = chars.codePoints().toArray();
        int b = 0;
        int e = s.length();
        while (leading && b < e && contains(set, s.codePointAt(b))) {
            b += Character.charCount(s.codePointAt(b));
        }
        while (trailing && e > b && contains(set, s.codePointBefore(e))) {
            e -= Character.charCount(s.codePointBefore(e));
        }
        return s.substring(b, e);
    }

    private static boolean contains(int[] set, int c) {
        for (int x : set) {
            if (x == c) {
                return true;
            }
        }
        return false;
    }

    private static void checkLength(long n) {
        if (n > MAX_LENGTH) {
            throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, "requested length too large");
        }
    }

    /** The first {@code n} code points of {@code s} (all of it when shorter). */
    private static String prefix(String s, long n) {
        int len = length(s);
        return n >= len ? s : s.substring(0, s.offsetByCodePoints(0, (int) n));
    }

    private static String pad(String s, long len, String fill, boolean left) {
        if (len <= 0) {
            return "";
        }
        checkLength(len);
        int have = length(s);
        if (have >= len || fill.isEmpty()) {
            return prefix(s, len);
        }
        StringBuilder padding = new StringBuilder();
        int[] f = fill.codePoints().toArray();
        for (long i = 0; i < len - have; i++) {
            padding.appendCodePoint(f[(int) (i % f.length)]);
        }
        return left ? padding + s : s + padding;
    }

    private static String left(String s, long n) {
        int len = length(s);
        long keep = n >= 0 ? Math.min(n, len) : Math.max(0, len + n);
        return prefix(s, keep);
    }

    private static String right(String s, long n) {
        int len = length(s);
        long drop = n >= 0 ? Math.max(0, len - n) : Math.min(len, -n);
        return s.substring(s.offsetByCodePoints(0, (int) drop));
    }

    private static String repeat(String s, long n) {
        if (n <= 0 || s.isEmpty()) {
            return "";
        }
        checkLength(Math.multiplyHigh(n, length(s)) != 0 ? Long.MAX_VALUE : n * length(s));
        return s.repeat((int) n);
    }

    /**
     * Each word's first letter in upper case and the rest in lower case, a word being a run of letters and
     * digits, as PostgreSQL's {@code initcap} in the C locale (ASCII letters and digits only).
     */
    private static String initcap(String s) {
        StringBuilder b = new StringBuilder(s.length());
        boolean inWord = false;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            i += Character.charCount(c);
            b.appendCodePoint(c < 128 ? (inWord ? Character.toLowerCase(c) : Character.toUpperCase(c)) : c);
            inWord = c < 128 && Character.isLetterOrDigit(c);
        }
        return b.toString();
    }

    private static String md5(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Each code point of {@code from} in {@code s} replaced by the one at its position in {@code to}, or removed past its end. */
    private static String translate(String s, String from, String to) {
        int[] f = from.codePoints().toArray();
        int[] t = to.codePoints().toArray();
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(c -> {
            for (int i = 0; i < f.length; i++) {
                if (f[i] == c) {
                    if (i < t.length) {
                        b.appendCodePoint(t[i]);
                    }
                    return;
                }
            }
            b.appendCodePoint(c);
        });
        return b.toString();
    }

    /** PostgreSQL's keywords that {@code quote_ident} quotes: all but its unreserved ones. */
    private static final java.util.Set<String> QUOTED_KEYWORDS = java.util.Set.of("all", "analyse", "analyze", "and", "any", "array", "as",
            "asc", "asymmetric", "both", "case", "cast", "check", "collate", "column", "constraint", "create", "current_catalog",
            "current_date", "current_role", "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc",
            "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in",
            "initially", "intersect", "into", "lateral", "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on",
            "only", "or", "order", "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric",
            "table", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "when", "where", "window", "with",
            "between", "bigint", "bit", "boolean", "char", "character", "coalesce", "dec", "decimal", "exists", "extract", "float",
            "greatest", "grouping", "inout", "int", "integer", "interval", "least", "national", "nchar", "none", "normalize", "nullif",
            "numeric", "out", "overlay", "position", "precision", "real", "row", "setof", "smallint", "substring", "time", "timestamp",
            "treat", "trim", "values", "varchar", "xmlattributes", "xmlconcat", "xmlelement", "xmlexists", "xmlforest",
            "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltable", "authorization", "binary", "collation",
            "concurrently", "cross", "current_schema", "freeze", "full", "ilike", "inner", "is", "isnull", "join", "left", "like",
            "natural", "notnull", "outer", "overlaps", "right", "similar", "tablesample", "verbose");

    /** PostgreSQL's {@code quote_ident}: bare when lower-case letters, digits and underscores (not first a digit) and no keyword. */
    static String quoteIdent(String s) {
        boolean safe = !s.isEmpty() && (s.charAt(0) >= 'a' && s.charAt(0) <= 'z' || s.charAt(0) == '_');
        for (int i = 0; i < s.length() && safe; i++) {
            char c = s.charAt(i);
            safe = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_';
        }
        return safe && !QUOTED_KEYWORDS.contains(s) ? s : "\"" + s.replace("\"", "\"\"") + "\"";
    }

    /** PostgreSQL's {@code quote_literal}: quotes doubled, and {@code E'...'} with backslashes doubled when there is one. */
    static String quoteLiteral(String s) {
        String body = s.replace("'", "''");
        return s.indexOf('\\') >= 0 ? "E'" + body.replace("\\", "\\\\") + "'" : "'" + body + "'";
    }

    /**
     * The number the digits of {@code fmt} from {@code at[0]} spell (0 when none), as format() reads a width or an
     * argument position, past an int's range an {@link EvalError}; {@code at[0]} moves past them.
     */
    private static long digits(String fmt, int[] at) {
        long digits = 0;
        int i = at[0];
        while (i < fmt.length() && Character.isDigit(fmt.charAt(i))) {
            digits = digits * 10 + (fmt.charAt(i) - '0');
            if (digits > Integer.MAX_VALUE) {
                throw new EvalError(EvalError.Code.NUMERIC_OUT_OF_RANGE, "number is out of range");
            }
            i++;
        }
        at[0] = i;
        return digits;
    }

    /**
     * PostgreSQL's {@code format(fmt, args...)}: {@code %s} (NULL as nothing), {@code %I} (an identifier, NULL an error),
     * {@code %L} (a literal, NULL as {@code NULL}), {@code %%}; an argument position {@code %2$s} (the next one counts on from
     * it), the {@code -} flag and a width in characters. A width taken from an argument ({@code *}) is refused.
     */
    static String format(String fmt, String[] args) {
        StringBuilder out = new StringBuilder();
        int arg = 0;
        int n = fmt.length();
        for (int i = 0; i < n; i++) {
            char c = fmt.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (++i >= n) {
                throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unterminated format() type specifier");
            }
            if (fmt.charAt(i) == '%') {
                out.append('%');
                continue;
            }
            int argpos = 0;
            int width = 0;
            boolean left = false;
            int start = i;
            int[] end = {i};
            long digits = digits(fmt, end);
            i = end[0];
            if (i >= n) {
                throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unterminated format() type specifier");
            }
            boolean done = false;
            if (i > start) {
                if (fmt.charAt(i) != '$') {
                    width = (int) digits;
                    done = true;
                } else {
                    if (digits == 0) {
                        throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "format specifies argument 0, but arguments are numbered from 1");
                    }
                    argpos = (int) digits;
                    if (++i >= n) {
                        throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unterminated format() type specifier");
                    }
                }
            }
            if (!done) {
                while (fmt.charAt(i) == '-') {
                    left = true;
                    if (++i >= n) {
                        throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unterminated format() type specifier");
                    }
                }
                if (fmt.charAt(i) == '*') {
                    throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: a width taken from an argument (*) in format()");
                }
                int from = i;
                end[0] = i;
                digits = digits(fmt, end);
                i = end[0];
                if (i >= n) {
                    throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unterminated format() type specifier");
                }
                if (i > from) {
                    width = (int) digits;
                }
            }
            char type = fmt.charAt(i);
            if (type != 's' && type != 'I' && type != 'L') {
                throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "unrecognized format() type specifier \"" + new String(Character.toChars(fmt.codePointAt(i))) + "\"");
            }
            arg = argpos > 0 ? argpos : arg + 1;
            if (arg > args.length) {
                throw new EvalError(EvalError.Code.INVALID_PARAMETER_VALUE, "too few arguments for format()");
            }
            String v = args[arg - 1];
            String s = switch (type) {
                case 's' -> v == null ? "" : v;
                case 'L' -> v == null ? "NULL" : quoteLiteral(v);
                default -> {
                    if (v == null) {
                        throw new EvalError(EvalError.Code.NULL_VALUE_NOT_ALLOWED, "null values cannot be formatted as an SQL identifier");
                    }
                    yield quoteIdent(v);
                }
            };
            int pad = width - s.codePointCount(0, s.length());
            if (pad > 0 && !left) {
                out.append(" ".repeat(pad));
            }
            out.append(s);
            if (pad > 0 && left) {
                out.append(" ".repeat(pad));
            }
            if (out.length() > MAX_LENGTH) {
                throw new EvalError(EvalError.Code.PROGRAM_LIMIT_EXCEEDED, "requested length too large");
            }
        }
        return out.toString();
    }
}
