package dev.tandem.row;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A PostgreSQL {@code jsonb} value: a JSON document in PostgreSQL's normal form (object keys unique, the last
 * duplicate kept, ordered by length then bytes; numbers as {@code numeric}s), compared in PostgreSQL's jsonb
 * btree order.
 *
 * <p>Its tree is made of {@link #NULL}, {@link String}, {@link BigDecimal} (of non-negative scale),
 * {@link Boolean}, an unmodifiable {@link List} (an array) and an unmodifiable {@link Map} in key order (an object).
 */
public final class Jsonb implements Comparable<Jsonb> {

    /** JSON's {@code null} in a tree (a SQL NULL is no jsonb at all). */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** Why a text is no jsonb: PostgreSQL's three SQLSTATEs for it. */
    public enum Problem {
        /** 22P02: invalid input syntax for type json. */
        SYNTAX,
        /** 22003: a number too large for a numeric. */
        NUMERIC_OVERFLOW,
        /** 22P05: a {@code \u0000} escape, which PostgreSQL's text cannot hold. */
        UNSUPPORTED_ESCAPE
    }

    /** A text that is no JSON document, with PostgreSQL's reason. */
    public static final class SyntaxError extends IllegalArgumentException {
        private final Problem problem;

        SyntaxError(Problem problem, String detail) {
            super(detail);
            this.problem = problem;
        }

        public Problem problem() {
            return problem;
        }
    }

    private final Object root;
    private String text;
    private byte[] sortKey;

    private Jsonb(Object root) {
        this.root = root;
    }

    /** The jsonb PostgreSQL's {@code jsonb_in} reads from {@code s}; a {@link SyntaxError} when it reads none. */
    public static Jsonb parse(String s) {
        Parser p = new Parser(s);
        p.space();
        Object v = p.value(0);
        p.space();
        if (p.i < s.length()) {
            throw p.error();
        }
        return new Jsonb(v);
    }

    /**
     * The jsonb of a tree of Java values ({@link #NULL}, String, BigDecimal, Long, Integer, Boolean, List, Map), put in
     * normal form: keys of a {@link Map} unique (a later one in its iteration order wins) and ordered, numbers of negative
     * scale rescaled.
     */
    public static Jsonb of(Object tree) {
        return new Jsonb(normal(tree));
    }

    /** The tree of this document (see the type's description). */
    public Object tree() {
        return root;
    }

    private static Object normal(Object v) {
        return switch (v) {
            case null -> NULL;
            case String s -> s;
            case Boolean b -> b;
            case BigDecimal d -> d.scale() < 0 ? d.setScale(0) : d;
            case Long l -> BigDecimal.valueOf(l);
            case Integer n -> BigDecimal.valueOf(n);
            case List<?> list -> {
                List<Object> out = new ArrayList<>(list.size());
                for (Object e : list) {
                    out.add(normal(e));
                }
                yield Collections.unmodifiableList(out);
            }
            case Map<?, ?> map -> {
                TreeMap<String, Object> sorted = new TreeMap<>(Jsonb::compareKeys);
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    sorted.put((String) e.getKey(), normal(e.getValue()));
                }
                yield Collections.unmodifiableMap(new LinkedHashMap<>(sorted));
            }
            default -> {
                if (v == NULL) {
                    yield NULL;
                }
                throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName());
            }
        };
    }

    /** PostgreSQL's order of an object's keys: by UTF-8 length, then bytes. */
    static int compareKeys(String a, String b) {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        return x.length != y.length ? Integer.compare(x.length, y.length) : java.util.Arrays.compareUnsigned(x, y);
    }

    /** PostgreSQL's output of this document: {@code {"a": 1, "b": [1, 2]}}. */
    public String text() {
        String t = text;
        if (t == null) {
            StringBuilder out = new StringBuilder();
            write(out, root);
            text = t = out.toString();
        }
        return t;
    }

    @Override
    public String toString() {
        return text();
    }

    private static void write(StringBuilder out, Object v) {
        switch (v) {
            case String s -> quote(out, s);
            case BigDecimal d -> out.append(d.toPlainString());
            case Boolean b -> out.append(b ? "true" : "false");
            case List<?> list -> {
                out.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        out.append(", ");
                    }
                    write(out, list.get(i));
                }
                out.append(']');
            }
            case Map<?, ?> map -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    if (!first) {
                        out.append(", ");
                    }
                    first = false;
                    quote(out, (String) e.getKey());
                    out.append(": ");
                    write(out, e.getValue());
                }
                out.append('}');
            }
            default -> out.append("null");
        }
    }

    /** Appends {@code s} as a JSON string, escaped as PostgreSQL's {@code escape_json} escapes it. */
    private static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /**
     * The packed order: PostgreSQL's ({@link #compareValue}), then, between documents PostgreSQL finds equal ({@code 1.0},
     * {@code 1.00}), by text.
     */
    @Override
    public int compareTo(Jsonb o) {
        int c = compareValue(o);
        return c != 0 ? c : java.util.Arrays.compareUnsigned(text().getBytes(StandardCharsets.UTF_8), o.text().getBytes(StandardCharsets.UTF_8));
    }

    /** PostgreSQL's jsonb btree order (see {@link #compare(Object, Object, boolean)}): its {@code =} and {@code <}. */
    public int compareValue(Jsonb o) {
        return compare(root, o.root, true);
    }

    /**
     * PostgreSQL's jsonb order of two trees: an object above an array above a boolean, a number, a string and null, in
     * that order; objects by their number of pairs, then pair by pair in key order; arrays by length, then element by
     * element. At the top level, a scalar is PostgreSQL's one-element "raw scalar" array: above an empty array, below
     * every other array.
     */
    static int compare(Object a, Object b, boolean top) {
        if (top) {
            int ra = a instanceof Map ? 2 : 1;
            int rb = b instanceof Map ? 2 : 1;
            if (ra != rb) {
                return Integer.compare(ra, rb);
            }
            if (ra == 1) {
                int na = a instanceof List<?> l ? l.size() : 1;
                int nb = b instanceof List<?> l ? l.size() : 1;
                if (na != nb) {
                    return Integer.compare(na, nb);
                }
                boolean sa = !(a instanceof List);
                boolean sb = !(b instanceof List);
                if (sa != sb) {
                    return sa ? -1 : 1;
                }
                if (sa) {
                    return compare(a, b, false);
                }
            }
        }
        int ta = rank(a);
        int tb = rank(b);
        if (ta != tb) {
            return Integer.compare(ta, tb);
        }
        return switch (a) {
            case String s -> compareStrings(s, (String) b);
            case BigDecimal d -> d.compareTo((BigDecimal) b);
            case Boolean x -> Boolean.compare(x, (Boolean) b);
            case List<?> x -> {
                List<?> y = (List<?>) b;
                if (x.size() != y.size()) {
                    yield Integer.compare(x.size(), y.size());
                }
                for (int i = 0; i < x.size(); i++) {
                    int c = compare(x.get(i), y.get(i), false);
                    if (c != 0) {
                        yield c;
                    }
                }
                yield 0;
            }
            case Map<?, ?> x -> {
                Map<?, ?> y = (Map<?, ?>) b;
                if (x.size() != y.size()) {
                    yield Integer.compare(x.size(), y.size());
                }
                var ix = x.entrySet().iterator();
                var iy = y.entrySet().iterator();
                while (ix.hasNext()) {
                    var ex = ix.next();
                    var ey = iy.next();
                    int c = compareStrings((String) ex.getKey(), (String) ey.getKey());
                    if (c == 0) {
                        c = compare(ex.getValue(), ey.getValue(), false);
                    }
                    if (c != 0) {
                        yield c;
                    }
                }
                yield 0;
            }
            default -> 0;
        };
    }

    /** Strings by code point (their UTF-8 bytes), as PostgreSQL's C collation orders them. */
    static int compareStrings(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int x = a.codePointAt(i);
            int y = b.codePointAt(j);
            if (x != y) {
                return Integer.compare(x, y);
            }
            i += Character.charCount(x);
            j += Character.charCount(y);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    /** The type order of PostgreSQL's jsonb: null, string, number, boolean, array, object. */
    private static int rank(Object v) {
        return switch (v) {
            case String s -> 1;
            case BigDecimal d -> 2;
            case Boolean b -> 3;
            case List<?> l -> 4;
            case Map<?, ?> m -> 5;
            default -> 0;
        };
    }

    /** The name PostgreSQL's {@code jsonb_typeof} gives a tree node. */
    public static String typeName(Object v) {
        return switch (rank(v)) {
            case 1 -> "string";
            case 2 -> "number";
            case 3 -> "boolean";
            case 4 -> "array";
            case 5 -> "object";
            default -> "null";
        };
    }

    /**
     * Bytes whose unsigned order is {@link #compareTo}'s and which no other key has as a prefix: for the row encoding
     * (numbers by value only, so {@code 1.0} and {@code 1.00} have one key).
     */
    byte[] sortKey() {
        byte[] k = sortKey;
        if (k == null) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (root instanceof Map) {
                key(out, root);
            } else if (root instanceof List<?> l) {
                out.write(5);
                count(out, l.size());
                out.write(1);
                for (Object e : l) {
                    key(out, e);
                }
            } else {
                out.write(5);
                count(out, 1);
                out.write(0);
                key(out, root);
            }
            sortKey = k = out.toByteArray();
        }
        return k;
    }

    private static void key(ByteArrayOutputStream out, Object v) {
        switch (v) {
            case String s -> {
                out.write(2);
                string(out, s);
            }
            case BigDecimal d -> {
                out.write(3);
                number(out, d);
            }
            case Boolean b -> {
                out.write(4);
                out.write(b ? 1 : 0);
            }
            case List<?> l -> {
                out.write(5);
                count(out, l.size());
                for (Object e : l) {
                    key(out, e);
                }
            }
            case Map<?, ?> m -> {
                out.write(6);
                count(out, m.size());
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    string(out, (String) e.getKey());
                    key(out, e.getValue());
                }
            }
            default -> out.write(1);
        }
    }

    private static void count(ByteArrayOutputStream out, int n) {
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
    }

    private static void string(ByteArrayOutputStream out, String s) {
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            out.write(b);
            if (b == 0) {
                out.write(0xFF);
            }
        }
        out.write(0);
        out.write(1);
    }

    /** A number by value as {@link RowPacker#pushNumeric} orders it, without the display scale. */
    private static void number(ByteArrayOutputStream out, BigDecimal v) {
        int signum = v.signum();
        out.write(signum + 1);
        if (signum == 0) {
            return;
        }
        String digits = v.unscaledValue().abs().toString().replaceFirst("0+$", "");
        int exponent = v.precision() - v.scale();
        int flip = signum < 0 ? 0xFF : 0;
        int e = exponent ^ Integer.MIN_VALUE;
        for (int shift = 24; shift >= 0; shift -= 8) {
            out.write((e >>> shift) ^ flip);
        }
        for (int i = 0; i < digits.length(); i++) {
            out.write(digits.charAt(i) ^ flip);
        }
        out.write(flip);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Jsonb j && text().equals(j.text());
    }

    @Override
    public int hashCode() {
        return text().hashCode();
    }

    /** PostgreSQL's JSON lexer and parser (RFC 8259, with its errors). */
    private static final class Parser {
        private static final int MAX_DEPTH = 6400;
        private final String s;
        private int i;

        Parser(String s) {
            this.s = s;
        }

        SyntaxError error() {
            return new SyntaxError(Problem.SYNTAX, "invalid input syntax for type json");
        }

        void space() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    i++;
                } else {
                    break;
                }
            }
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH || i >= s.length()) {
                throw error();
            }
            char c = s.charAt(i);
            return switch (c) {
                case '{' -> object(depth);
                case '[' -> array(depth);
                case '"' -> string();
                case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' -> number();
                default -> word();
            };
        }

        Object word() {
            int start = i;
            while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
                i++;
            }
            return switch (s.substring(start, i)) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "null" -> NULL;
                default -> throw error();
            };
        }

        Object number() {
            int start = i;
            if (s.charAt(i) == '-') {
                i++;
            }
            if (i >= s.length() || !digit(s.charAt(i))) {
                throw error();
            }
            if (s.charAt(i) == '0') {
                i++;
            } else {
                digits();
            }
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                if (i >= s.length() || !digit(s.charAt(i))) {
                    throw error();
                }
                digits();
            }
            if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                i++;
                if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                    i++;
                }
                if (i >= s.length() || !digit(s.charAt(i))) {
                    throw error();
                }
                digits();
            }
            if (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == '.')) {
                throw error();
            }
            BigDecimal d;
            try {
                d = new BigDecimal(s.substring(start, i));
            } catch (NumberFormatException | ArithmeticException e) {
                throw error();
            }
            if (d.scale() > 16383 || d.precision() - d.scale() > 131072) {
                throw new SyntaxError(Problem.NUMERIC_OVERFLOW, "value overflows numeric format");
            }
            return d.scale() < 0 ? d.setScale(0) : d;
        }

        private void digits() {
            while (i < s.length() && digit(s.charAt(i))) {
                i++;
            }
        }

        private static boolean digit(char c) {
            return c >= '0' && c <= '9';
        }

        String string() {
            i++;
            StringBuilder out = new StringBuilder();
            while (true) {
                if (i >= s.length()) {
                    throw error();
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return out.toString();
                }
                if (c < 0x20) {
                    throw error();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw error();
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        int u = hex4();
                        if (u == 0) {
                            throw new SyntaxError(Problem.UNSUPPORTED_ESCAPE, "unsupported Unicode escape sequence");
                        }
                        if (Character.isHighSurrogate((char) u)) {
                            if (i + 1 < s.length() && s.charAt(i) == '\\' && s.charAt(i + 1) == 'u') {
                                i += 2;
                                int low = hex4();
                                if (!Character.isLowSurrogate((char) low)) {
                                    throw error();
                                }
                                out.append((char) u).append((char) low);
                            } else {
                                throw error();
                            }
                        } else if (Character.isLowSurrogate((char) u)) {
                            throw error();
                        } else {
                            out.append((char) u);
                        }
                    }
                    default -> throw error();
                }
            }
        }

        private int hex4() {
            if (i + 4 > s.length()) {
                throw error();
            }
            int v = 0;
            for (int k = 0; k < 4; k++) {
                int d = Character.digit(s.charAt(i + k), 16);
                if (d < 0 || s.charAt(i + k) > 'f') {
                    throw error();
                }
                v = v << 4 | d;
            }
            i += 4;
            return v;
        }

        Object array(int depth) {
            i++;
            List<Object> out = new ArrayList<>();
            space();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return Collections.unmodifiableList(out);
            }
            while (true) {
                space();
                out.add(value(depth + 1));
                space();
                if (i >= s.length()) {
                    throw error();
                }
                char c = s.charAt(i++);
                if (c == ']') {
                    return Collections.unmodifiableList(out);
                }
                if (c != ',') {
                    throw error();
                }
            }
        }

        Object object(int depth) {
            i++;
            TreeMap<String, Object> out = new TreeMap<>(Jsonb::compareKeys);
            space();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return Collections.unmodifiableMap(new LinkedHashMap<>(out));
            }
            while (true) {
                space();
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw error();
                }
                String k = string();
                space();
                if (i >= s.length() || s.charAt(i++) != ':') {
                    throw error();
                }
                space();
                out.put(k, value(depth + 1));
                space();
                if (i >= s.length()) {
                    throw error();
                }
                char c = s.charAt(i++);
                if (c == '}') {
                    return Collections.unmodifiableMap(new LinkedHashMap<>(out));
                }
                if (c != ',') {
                    throw error();
                }
            }
        }
    }
}
