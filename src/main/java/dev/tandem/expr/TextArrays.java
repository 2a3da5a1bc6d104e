package dev.tandem.expr;

import java.util.ArrayList;
import java.util.List;

/** PostgreSQL's input of a one-dimensional {@code text[]} literal ({@code '{a,"b c",NULL}'}), as the jsonb path operators take it. */
final class TextArrays {

    private TextArrays() {
    }

    /** The elements of {@code s} (null for an unquoted {@code NULL}); an {@link EvalError} (22P02) when it is no such literal. */
    static List<String> parse(String s) {
        int i = skipSpace(s, 0);
        if (i >= s.length() || s.charAt(i) != '{') {
            throw malformed(s);
        }
        i = skipSpace(s, i + 1);
        List<String> out = new ArrayList<>();
        if (i < s.length() && s.charAt(i) == '}') {
            if (skipSpace(s, i + 1) != s.length()) {
                throw malformed(s);
            }
            return out;
        }
        while (true) {
            i = skipSpace(s, i);
            if (i >= s.length()) {
                throw malformed(s);
            }
            StringBuilder e = new StringBuilder();
            boolean quoted = false;
            if (s.charAt(i) == '"') {
                quoted = true;
                i++;
                while (true) {
                    if (i >= s.length()) {
                        throw malformed(s);
                    }
                    char c = s.charAt(i++);
                    if (c == '"') {
                        break;
                    }
                    if (c == '\\') {
                        if (i >= s.length()) {
                            throw malformed(s);
                        }
                        c = s.charAt(i++);
                    }
                    e.append(c);
                }
                i = skipSpace(s, i);
            } else {
                int trailing = 0;
                boolean escapedAny = false;
                while (i < s.length() && s.charAt(i) != ',' && s.charAt(i) != '}') {
                    char c = s.charAt(i++);
                    if (c == '{' || c == '"') {
                        throw malformed(s);
                    }
                    if (c == '\\') {
                        if (i >= s.length()) {
                            throw malformed(s);
                        }
                        e.append(s.charAt(i++));
                        trailing = 0;
                        escapedAny = true;
                    } else if (Character.isWhitespace(c)) {
                        e.append(c);
                        trailing++;
                    } else {
                        e.append(c);
                        trailing = 0;
                    }
                }
                e.setLength(e.length() - trailing);
                if (e.isEmpty()) {
                    throw malformed(s);
                }
                quoted = escapedAny;
            }
            String v = e.toString();
            out.add(!quoted && v.equalsIgnoreCase("null") ? null : v);
            if (i >= s.length()) {
                throw malformed(s);
            }
            char c = s.charAt(i++);
            if (c == '}') {
                if (skipSpace(s, i) != s.length()) {
                    throw malformed(s);
                }
                return out;
            }
            if (c != ',') {
                throw malformed(s);
            }
        }
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static EvalError malformed(String s) {
        return new EvalError(EvalError.Code.INVALID_TEXT_REPRESENTATION, "malformed array literal: \"" + s + "\"");
    }
}
