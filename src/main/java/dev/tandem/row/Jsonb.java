package dev.tandem.row;

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
 * {@link JsonbParser} reads a text into such a tree, {@link JsonbWriter} prints one, and {@link JsonbSortKey} encodes
 * one for the row encoding.
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

    /** The jsonb PostgreSQL's {@code jsonb_in} reads from {@code s} (see {@link JsonbParser}); a {@link SyntaxError} when it reads none. */
    public static Jsonb parse(String s) {
        return new Jsonb(JsonbParser.parse(s));
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
            text = t = JsonbWriter.text(root);
        }
        return t;
    }

    @Override
    public String toString() {
        return text();
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
            sortKey = k = JsonbSortKey.of(root);
        }
        return k;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Jsonb j && text().equals(j.text());
    }

    @Override
    public int hashCode() {
        return text().hashCode();
    }
}
