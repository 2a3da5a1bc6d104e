package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import dev.tandem.sql.SqlState;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * PostgreSQL's operators a catalog query uses that Calcite lacks, as the functions the rewritten query calls:
 * {@code ~} and {@code ~*} ({@code tandem_regex}), {@code ~~} ({@code tandem_like}), {@code &} and {@code |} of
 * integers, and {@code = ANY} of an array bound as a parameter ({@code tandem_any}).
 */
@org.apache.calcite.linq4j.function.NonDeterministic
public final class PgOperatorFunctions {

    private PgOperatorFunctions() {
    }

    /** What PostgreSQL's regular expressions (ARE) mean and Java's do not, or mean otherwise. */
    private static final Pattern ARE_ONLY = Pattern.compile("\\[[:.=]|\\\\[mMyYZ]|^\\*\\*\\*|\\(\\?[^:=!]");

    /**
     * {@code text ~ pattern} (and {@code ~*} when {@code insensitive}), with Java's regular expressions for
     * PostgreSQL's where they agree (what psql, drivers and ORMs send: anchors, groups, classes,
     * quantifiers); the constructs only PostgreSQL's have are refused.
     */
    public static Boolean regex(String text, String pattern, Boolean insensitive) {
        if (text == null || pattern == null) {
            return null;
        }
        if (ARE_ONLY.matcher(pattern).find()) {
            throw SqlException.notSupported("this regular expression in a catalog query (POSIX classes, collating elements, "
                    + "and \\m \\M \\y \\Y \\Z escapes are PostgreSQL's alone): " + pattern);
        }
        try {
            return Pattern.compile(pattern, Boolean.TRUE.equals(insensitive) ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0)
                    .matcher(text).find();
        } catch (PatternSyntaxException e) {
            throw new SqlException(SqlState.INVALID_REGULAR_EXPRESSION, "invalid regular expression: " + e.getDescription());
        }
    }

    /** {@code text ~~ pattern}: LIKE, with {@code \} escaping. */
    public static Boolean like(String text, String pattern, Boolean insensitive) {
        if (text == null || pattern == null) {
            return null;
        }
        StringBuilder re = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c == '\\' && i + 1 < pattern.length()) {
                re.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
            } else if (c == '%') {
                re.append(".*");
            } else if (c == '_') {
                re.append('.');
            } else {
                re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL | (Boolean.TRUE.equals(insensitive) ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0))
                .matcher(text).matches();
    }

    public static Long bitAnd(Long a, Long b) {
        return a == null || b == null ? null : a & b;
    }

    public static Long bitOr(Long a, Long b) {
        return a == null || b == null ? null : a | b;
    }

    /**
     * {@code value = ANY(array)} for an array bound as a parameter in PostgreSQL's text form
     * ({@code {a,b,"c d",NULL}}): true when an element equals the value's text, else NULL when the value
     * or an element is NULL, else false.
     */
    public static Boolean anyOf(Object value, String array) {
        if (value == null || array == null) {
            return null;
        }
        List<String> elements = PgArrays.parse(array);
        String v = PgCatalogFunctions.text(value);
        boolean unknown = false;
        for (String e : elements) {
            if (e == null) {
                unknown = true;
            } else if (e.equals(v)) {
                return true;
            }
        }
        return unknown ? null : false;
    }
}
