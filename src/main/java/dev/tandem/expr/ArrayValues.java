package dev.tandem.expr;

import dev.tandem.row.DatumArray;
import dev.tandem.row.DatumType;
import dev.tandem.row.Jsonb;
import dev.tandem.row.Timestamp;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** PostgreSQL's one-dimensional arrays: their text input and output, and the operators and functions of them. */
public final class ArrayValues {

    private ArrayValues() {
    }

    /**
     * The array of {@code element} values PostgreSQL's input reads {@code text} as ({@code '{1,"b c",NULL}'}); an
     * {@link EvalError} ({@code malformed array literal}, 22P02) when it is none, or when an element does not read as
     * an {@code element}; a multidimensional array or one with explicit bounds is not supported.
     */
    public static DatumArray parse(String text, DatumType element) {
        return parse(text, element, java.time.ZoneOffset.UTC);
    }

    /** PostgreSQL's input of an array as {@link #parse(String, DatumType)}, a {@code timestamptz} element without a zone in {@code zone}. */
    public static DatumArray parse(String text, DatumType element, java.time.ZoneId zone) {
        String s = text.strip();
        if (s.startsWith("[") || s.startsWith("{") && s.substring(1).strip().startsWith("{")) {
            throw new EvalError(EvalError.Code.NOT_SUPPORTED, "not supported: multidimensional arrays and arrays with explicit bounds (\"" + text + "\")");
        }
        List<String> parts = TextArrays.parse(text);
        List<Object> values = new ArrayList<>(parts.size());
        for (String p : parts) {
            values.add(p == null ? null : element == DatumType.TIMESTAMP ? Datetimes.parseTimestamp(p) : ExprEval.cast(p, element, zone));
        }
        return new DatumArray(element, values);
    }

    /** PostgreSQL's text output of {@code a}: {@code {1,2,NULL}}, an element quoted when it must be. */
    public static String text(DatumArray a) {
        return text(a, java.time.ZoneOffset.UTC);
    }

    /** PostgreSQL's text output of {@code a} as {@link #text(DatumArray)}, a {@code timestamptz} element in {@code zone}. */
    public static String text(DatumArray a, java.time.ZoneId zone) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < a.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            Object e = a.get(i);
            if (e == null) {
                b.append("NULL");
                continue;
            }
            String t = elementText(e, zone);
            if (needsQuotes(t)) {
                b.append('"');
                for (int j = 0; j < t.length(); j++) {
                    char c = t.charAt(j);
                    if (c == '"' || c == '\\') {
                        b.append('\\');
                    }
                    b.append(c);
                }
                b.append('"');
            } else {
                b.append(t);
            }
        }
        return b.append('}').toString();
    }

    private static boolean needsQuotes(String t) {
        if (t.isEmpty() || t.equalsIgnoreCase("NULL")) {
            return true;
        }
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
                    || c == '\u000b' || c == '\f') {
                return true;
            }
        }
        return false;
    }

    /** A non-NULL element in PostgreSQL's text output of its type ({@code t}, {@code 1.5}, {@code 2024-01-02 03:04:05}). */
    public static String elementText(Object v) {
        return elementText(v, java.time.ZoneOffset.UTC);
    }

    /** A non-NULL element in PostgreSQL's text output of its type, a {@code timestamptz} in {@code zone}. */
    public static String elementText(Object v, java.time.ZoneId zone) {
        return switch (v) {
            case Boolean b -> b ? "t" : "f";
            case Double d -> floatText(d);
            case BigDecimal d -> d.toPlainString();
            case java.time.LocalDate d -> Datetimes.text(d);
            case dev.tandem.row.TimestampTz ts -> Datetimes.text(ts, zone);
            case Timestamp ts -> {
                java.time.LocalDateTime t = java.time.LocalDateTime.ofInstant(ts.toInstant(), java.time.ZoneOffset.UTC);
                String s = t.format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
                int micros = (int) Math.floorMod(ts.micros(), 1_000_000L);
                yield micros == 0 ? s : s + "." + String.format("%06d", micros).replaceAll("0+$", "");
            }
            default -> v.toString();
        };
    }

    /**
     * A double as PostgreSQL 15 prints it: the shortest digits that read back as the same double, in plain
     * notation when the decimal exponent is from -4 to 14 ({@code 0.0005}, {@code 12345678.5}), else as
     * {@code 1.5e-07}, {@code 1e+20} (at least two exponent digits).
     */
    public static String floatText(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return 1 / d < 0 ? "-0" : "0";
        }
        BigDecimal shortest = new BigDecimal(Double.toString(d)).stripTrailingZeros();
        int exponent = shortest.precision() - shortest.scale() - 1;
        if (exponent >= -4 && exponent < 15) {
            return shortest.toPlainString();
        }
        String digits = shortest.unscaledValue().abs().toString();
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        String exp = String.format(Locale.ROOT, "%02d", Math.abs(exponent));
        return (d < 0 ? "-" : "") + mantissa + "e" + (exponent < 0 ? "-" : "+") + exp;
    }

    /**
     * {@code x op ANY (a)} ({@code all}: {@code op ALL}) as PostgreSQL evaluates it: false for an empty array (ALL: true)
     * whatever {@code x}; else NULL when {@code x} is; else true when some element compares true (ALL: false when some
     * compares false), otherwise NULL when some element is NULL, otherwise false (ALL: true).
     */
    static Boolean quantified(Func op, Object x, DatumArray a, boolean all) {
        if (a.size() == 0) {
            return all;
        }
        if (x == null) {
            return null;
        }
        boolean sawNull = false;
        for (Object e : a.elements()) {
            if (e == null) {
                sawNull = true;
                continue;
            }
            int c = Datums.sqlCompare(x, e);
            boolean r = switch (op) {
                case EQ -> c == 0;
                case NEQ -> c != 0;
                case LT -> c < 0;
                case LTE -> c <= 0;
                case GT -> c > 0;
                case GTE -> c >= 0;
                default -> throw new IllegalStateException("not a comparison: " + op);
            };
            if (r != all) {
                return r;
            }
        }
        return sawNull ? null : all;
    }

    /** The element at 1-based {@code i}, NULL out of range (PostgreSQL's {@code a[i]}). */
    static Object get(DatumArray a, long i) {
        return i >= 1 && i <= a.size() ? a.get((int) (i - 1)) : null;
    }

    /** {@code array_length(a, dim)}: its length in dimension 1, NULL for an empty array or another dimension. */
    static Long length(DatumArray a, long dim) {
        return dim == 1 && a.size() > 0 ? (long) a.size() : null;
    }

    /** {@code array_to_string(a, sep[, nullText])}: the elements' text joined by {@code sep}, NULLs skipped unless {@code nullText} is given. */
    static String join(DatumArray a, String sep, String nullText) {
        StringBuilder b = new StringBuilder();
        boolean first = true;
        for (Object e : a.elements()) {
            if (e == null && nullText == null) {
                continue;
            }
            if (!first) {
                b.append(sep);
            }
            first = false;
            b.append(e == null ? nullText : elementText(e));
        }
        return b.toString();
    }

    /** {@code a || b} of two arrays (array_cat): a NULL side is no elements, NULL when both are. */
    static DatumArray concat(DatumArray a, DatumArray b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        List<Object> out = new ArrayList<>(a.elements());
        out.addAll(b.elements());
        return new DatumArray(a.elementType(), out);
    }

    /**
     * {@code a || e} (array_append), or {@code e || a} (array_prepend) when {@code first}: a NULL array is an empty one
     * (NULL when the element is NULL too: its type is then unknown here).
     */
    static DatumArray add(DatumArray a, Object e, boolean first) {
        if (a == null && e == null) {
            return null;
        }
        DatumType element = a != null ? a.elementType() : java.util.Arrays.stream(DatumType.values()).filter(t -> !t.isArray() && t.accepts(e))
                .findFirst().orElseThrow();
        List<Object> out = new ArrayList<>(a == null ? List.of() : a.elements());
        out.add(first ? 0 : out.size(), e);
        return new DatumArray(element, out);
    }

    /** {@code a @> b}: every element of {@code b} equals some element of {@code a} (a NULL element equals none). */
    static boolean contains(DatumArray a, DatumArray b) {
        for (Object e : b.elements()) {
            if (!has(a, e)) {
                return false;
            }
        }
        return true;
    }

    /** {@code a && b}: some element of one equals some element of the other. */
    static boolean overlaps(DatumArray a, DatumArray b) {
        for (Object e : b.elements()) {
            if (has(a, e)) {
                return true;
            }
        }
        return false;
    }

    private static boolean has(DatumArray a, Object e) {
        if (e == null) {
            return false;
        }
        for (Object x : a.elements()) {
            if (x != null && Datums.sqlCompare(x, e) == 0) {
                return true;
            }
        }
        return false;
    }

    /** jsonb's {@code ?|} ({@code all}: {@code ?&}) of a text array: whether any (all) of its non-NULL strings exist as keys or string elements. */
    static boolean jsonbExists(Jsonb j, DatumArray keys, boolean all) {
        for (Object k : keys.elements()) {
            if (k == null) {
                continue;
            }
            if (Jsonbs.exists(j, (String) k) != all) {
                return !all;
            }
        }
        return all;
    }

    /** {@code a} with each element cast to {@code to} (an array cast, {@code text[]} to {@code bigint[]}). */
    static DatumArray cast(DatumArray a, DatumType to, java.time.ZoneId zone) {
        List<Object> out = new ArrayList<>(a.size());
        for (Object e : a.elements()) {
            out.add(e == null ? null : ExprEval.cast(e, to.element(), zone));
        }
        return new DatumArray(to.element(), out);
    }

    /** The datum order of two arrays (element by element, NULL last, then the shorter first); {@code sql}: elements as SQL compares them. */
    static int compare(DatumArray a, DatumArray b, boolean sql) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            Object x = a.get(i);
            Object y = b.get(i);
            int c = x == null || y == null ? Datums.compare(x, y) : sql ? Datums.sqlCompare(x, y) : Datums.compare(x, y);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
