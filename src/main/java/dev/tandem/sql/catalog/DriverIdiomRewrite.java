package dev.tandem.sql.catalog;

import dev.tandem.sql.SqlException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites, in the text before it is lexed, the drivers' set-returning idioms over an index's or key's
 * columns into {@code UNNEST ... WITH ORDINALITY}: pgjdbc's {@code information_schema._pg_expandarray(x)}
 * and SQLAlchemy's {@code unnest(…)} beside {@code generate_subscripts(…)}.
 */
final class DriverIdiomRewrite {

    /** pgjdbc's {@code information_schema._pg_expandarray(x)} over a key or index's columns, in getPrimaryKeys and getIndexInfo. */
    private static final Pattern FIELD_X = Pattern.compile("(?i)\\(\\s*(\\w+)\\.(\\w+)\\s*\\)\\.x");
    /** SQLAlchemy's {@code unnest(ix.indkey) attnum, generate_subscripts(ix.indkey, 1) ord FROM pg_index ix}. */
    private static final Pattern UNNEST_SUBSCRIPTS = Pattern.compile("(?is)SELECT\\s+unnest\\((\\w+)\\.(\\w+)\\)\\s+(\\w+)\\s*,\\s*"
            + "generate_subscripts\\(\\1\\.\\2\\s*,\\s*1\\)\\s+(\\w+)\\s+FROM\\s+((?:pg_catalog\\.)?\\w+)\\s+\\1\\b");

    private static final Pattern EXPAND = Pattern.compile("(?i)information_schema\\._pg_expandarray\\(\\s*(\\w+)\\.(\\w+)\\s*\\)");

    private DriverIdiomRewrite() {
    }

    static String rewrite(String sql) {
        Matcher m = UNNEST_SUBSCRIPTS.matcher(sql);
        if (m.find()) {
            sql = m.replaceAll("SELECT k.x AS $3, k.n AS $4 FROM $5 $1 CROSS JOIN UNNEST($1.$2) WITH ORDINALITY AS k(x, n)");
        }
        Matcher e = EXPAND.matcher(sql);
        if (!e.find()) {
            return sql;
        }
        String alias = e.group(1);
        String column = e.group(2);
        String call = Pattern.quote(e.group());
        if (sql.replaceAll(call, "").matches("(?is).*_pg_expandarray.*")) {
            throw SqlException.notSupported("information_schema._pg_expandarray of more than one array");
        }
        sql = sql.replaceAll("\\(\\s*" + call + "\\s*\\)\\.n\\b", "tandem_keys.n");
        sql = sql.replaceAll("\\(\\s*" + call + "\\s*\\)\\.x\\b", "tandem_keys.x");
        Matcher as = Pattern.compile("(?i)" + call + "\\s+AS\\s+(\\w+)").matcher(sql);
        if (as.find()) {
            String name = as.group(1);
            sql = as.replaceFirst("tandem_keys.x AS " + name + "_x");
            sql = FIELD_X.matcher(sql).replaceAll(r -> r.group(2).equalsIgnoreCase(name) ? r.group(1) + "." + name + "_x"
                    : Matcher.quoteReplacement(r.group()));
        }
        if (sql.matches("(?is).*_pg_expandarray.*")) {
            throw SqlException.notSupported("this use of information_schema._pg_expandarray");
        }
        // the expansion joins the FROM item whose alias it reads
        Matcher im = Pattern.compile("(?i)(pg_catalog\\.\\w+\\s+" + Pattern.quote(alias) + ")\\b(?!\\.)").matcher(sql);
        if (!im.find()) {
            throw SqlException.notSupported("this use of information_schema._pg_expandarray");
        }
        int at = joinConditionEnd(sql, im.end());
        return sql.substring(0, at) + " CROSS JOIN UNNEST(" + alias + "." + column + ") WITH ORDINALITY AS tandem_keys(x, n)" + sql.substring(at);
    }

    /** The index after the FROM item's own join condition {@code ON (…)} that follows {@code at}, or {@code at} when it has none. */
    private static int joinConditionEnd(String sql, int at) {
        Matcher on = Pattern.compile("(?i)^\\s*ON\\s*\\(").matcher(sql.substring(at));
        if (!on.find()) {
            return at;
        }
        int depth = 0;
        int i = at + on.end() - 1;
        for (; i < sql.length(); i++) {
            if (sql.charAt(i) == '(') {
                depth++;
            } else if (sql.charAt(i) == ')' && --depth == 0) {
                break;
            }
        }
        return i + 1;
    }
}
