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
            throw new EvalError("field position must not be zero");
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
            throw new EvalError("requested length too large");
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
}
