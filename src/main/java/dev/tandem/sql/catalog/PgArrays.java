package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import java.util.ArrayList;
import java.util.List;

/** PostgreSQL's text form of a one-dimensional array, read: {@code {a,b,"c, d","e\"f",NULL}}. */
final class PgArrays {

    private PgArrays() {
    }

    /** The elements of {@code text} (a NULL element is null); a malformed array is {@code 22P02}. */
    static List<String> parse(String text) {
        String s = text.strip();
        if (s.length() < 2 || s.charAt(0) != '{' || s.charAt(s.length() - 1) != '}') {
            throw malformed(text);
        }
        List<String> out = new ArrayList<>();
        int i = 1;
        int end = s.length() - 1;
        if (s.substring(1, end).isBlank()) {
            return out;
        }
        while (i <= end) {
            while (i < end && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            StringBuilder e = new StringBuilder();
            boolean quoted = i < end && s.charAt(i) == '"';
            if (quoted) {
                i++;
                while (i < end && s.charAt(i) != '"') {
                    if (s.charAt(i) == '\\' && i + 1 < end) {
                        i++;
                    }
                    e.append(s.charAt(i++));
                }
                if (i >= end) {
                    throw malformed(text);
                }
                i++;
                while (i < end && Character.isWhitespace(s.charAt(i))) {
                    i++;
                }
            } else {
                while (i < end && s.charAt(i) != ',') {
                    char c = s.charAt(i);
                    if (c == '{' || c == '}' || c == '"') {
                        throw malformed(text);
                    }
                    if (c == '\\' && i + 1 < end) {
                        i++;
                    }
                    e.append(s.charAt(i++));
                }
            }
            String element = quoted ? e.toString() : e.toString().strip();
            if (!quoted && element.isEmpty()) {
                throw malformed(text);
            }
            out.add(!quoted && element.equalsIgnoreCase("null") ? null : element);
            if (i < end && s.charAt(i) != ',') {
                throw malformed(text);
            }
            i++;
        }
        return out;
    }

    private static SqlException malformed(String text) {
        return new SqlException(SqlException.INVALID_TEXT, "malformed array literal: \"" + text + "\"");
    }
}
