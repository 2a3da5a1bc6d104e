package dev.tandem.row;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeMap;

/**
 * PostgreSQL's JSON lexer and parser as {@code jsonb_in} reads a document (RFC 8259, with its errors): a text to a
 * {@link Jsonb} tree in normal form, or a {@link Jsonb.SyntaxError} with PostgreSQL's reason.
 */
final class JsonbParser {
    private static final int MAX_DEPTH = 6400;
    private final String s;
    private int i;

    private JsonbParser(String s) {
        this.s = s;
    }

    /** The tree of the document {@code s} holds, blanks around it allowed; a {@link Jsonb.SyntaxError} when it holds none. */
    static Object parse(String s) {
        JsonbParser p = new JsonbParser(s);
        p.space();
        Object v = p.value(0);
        p.space();
        if (p.i < s.length()) {
            throw p.error();
        }
        return v;
    }

    private Jsonb.SyntaxError error() {
        return new Jsonb.SyntaxError(Jsonb.Problem.SYNTAX, "invalid input syntax for type json");
    }

    private void space() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                i++;
            } else {
                break;
            }
        }
    }

    private Object value(int depth) {
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

    private Object word() {
        int start = i;
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
            i++;
        }
        return switch (s.substring(start, i)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            case "null" -> Jsonb.NULL;
            default -> throw error();
        };
    }

    private Object number() {
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
            throw new Jsonb.SyntaxError(Jsonb.Problem.NUMERIC_OVERFLOW, "value overflows numeric format");
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

    private String string() {
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
                        throw new Jsonb.SyntaxError(Jsonb.Problem.UNSUPPORTED_ESCAPE, "unsupported Unicode escape sequence");
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

    private Object array(int depth) {
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

    private Object object(int depth) {
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
