package dev.tandem.sql;

import java.util.List;
import java.util.Set;

/**
 * PostgreSQL's {@code x::type} cast, rewritten as the {@code CAST(x AS type)} Calcite parses. {@code ::}
 * binds tighter than every operator but {@code .}: its operand is the primary just before it (a name,
 * a literal, a parameter, a parenthesized expression, a function call, a {@code CASE ... END}, an earlier
 * cast), so {@code -1::text} is {@code -(1::text)} and {@code a::int::text} casts twice. The type runs to
 * the end of its name ({@code double precision}, {@code character varying(10)}, {@code timestamp without
 * time zone}).
 */
final class PgCasts {

    /** Words before a parenthesis that do not make it a function call. */
    static final Set<String> KEYWORDS = Set.of("select", "where", "and", "or", "not", "in", "on", "from", "when", "then", "else",
            "by", "having", "as", "values", "is", "between", "like", "ilike", "case", "exists", "any", "all", "some", "distinct", "join",
            "using", "limit", "offset", "set", "into", "with", "union", "except", "intersect", "escape", "over", "filter", "returning",
            "table", "lateral", "similar", "to", "of");

    private PgCasts() {
    }

    /**
     * {@code sql} with every {@code ::} cast outside quotes and comments written as a CAST, and every {@code extract(field
     * FROM x)} as {@code pg_extract('field', x)} and {@code date_trunc(...)} as {@code pg_date_trunc(...)}, {@code timestamptz '...'} as its cast, and {@code interval '...'} and {@code x::interval} as {@code pg_interval(...)}: PostgreSQL's extract, of any field name (an unknown one is refused when
     * evaluated, as PostgreSQL refuses it), where Calcite's parser knows only its own fields.
     */
    static String rewrite(String sql) {
        sql = timeCasts(extracts(arrayTypes(sql)));
        if (!sql.contains("::")) {
            return AtTimeZone.rewrite(arrayCasts(sql));
        }
        String text = sql;
        while (true) {
            List<SqlLexer.Token> t = new SqlLexer(text).tokens();
            int colon = -1;
            for (int i = 0; i + 1 < t.size(); i++) {
                if (t.get(i).isPunct(":") && t.get(i + 1).isPunct(":") && t.get(i + 1).offset() == t.get(i).offset() + 1) {
                    colon = i;
                    break;
                }
            }
            if (colon < 0) {
                return AtTimeZone.rewrite(arrayCasts(text));
            }
            if (colon == 0) {
                throw error(text, t.get(colon));
            }
            int from = operandStart(text, t, colon - 1);
            int typeEnd = typeEnd(text, t, colon + 2);
            int start = t.get(from).offset();
            int typeStart = t.get(colon + 2).offset();
            String type = text.substring(typeStart, typeEnd).trim();
            boolean interval = type.equalsIgnoreCase("interval");
            boolean time = isTime(type);
            text = interval || time ? text.substring(0, start) + (time ? "pg_time(" : "pg_interval(") + text.substring(start, t.get(colon).offset()) + ")"
                    + text.substring(typeEnd)
                    : text.substring(0, start) + "CAST(" + text.substring(start, t.get(colon).offset()) + " AS "
                    + text.substring(typeStart, typeEnd) + ")" + text.substring(typeEnd);
        }
    }

    /** Whether {@code type} names PostgreSQL's {@code time} (without time zone). */
    private static boolean isTime(String type) {
        return type.toLowerCase(java.util.Locale.ROOT).matches("time(\\s+without\\s+time\\s+zone)?");
    }

    /**
     * {@code sql} with each {@code CAST(x AS time)} (or {@code time without time zone}) written as {@code pg_time(x)}, which
     * reads the time as PostgreSQL does, to the microsecond (Calcite's own cast would read it, and fold it, in milliseconds).
     */
    static String timeCasts(String sql) {
        if (!sql.toLowerCase(java.util.Locale.ROOT).contains("time")) {
            return sql;
        }
        String text = sql;
        while (true) {
            List<SqlLexer.Token> t = new SqlLexer(text).tokens();
            String next = null;
            for (int i = 0; i + 1 < t.size() && next == null; i++) {
                if (!t.get(i).is("cast") || !t.get(i + 1).isPunct("(")) {
                    continue;
                }
                int close = SqlLexer.afterClosing(t, i + 1) - 1;
                int as = close >= 3 && t.get(close - 1).is("time") && t.get(close - 2).is("as") ? close - 2
                        : close >= 6 && t.get(close - 1).is("zone") && t.get(close - 2).is("time") && t.get(close - 3).is("without")
                                && t.get(close - 4).is("time") && t.get(close - 5).is("as") ? close - 5 : -1;
                if (as > i + 2) {
                    next = text.substring(0, t.get(i).offset()) + "pg_time(" + text.substring(t.get(i + 2).offset(), t.get(as).offset()) + ")"
                            + text.substring(t.get(close).end());
                }
            }
            if (next == null) {
                return text;
            }
            text = next;
        }
    }

    /** PostgreSQL's array type names ({@code text[]}, {@code bigint[]}) written as SQL's ({@code text ARRAY}), which Calcite parses. */
    static String arrayTypes(String sql) {
        if (!sql.contains("[")) {
            return sql;
        }
        List<SqlLexer.Token> t = new SqlLexer(sql).tokens();
        StringBuilder out = new StringBuilder();
        int copied = 0;
        for (int i = 1; i + 1 < t.size(); i++) {
            SqlLexer.Token before = t.get(i - 1);
            if (t.get(i).isPunct("[") && t.get(i + 1).isPunct("]") && (before.isName() && !before.is("array") || before.isPunct(")"))) {
                out.append(sql, copied, t.get(i).offset()).append(" ARRAY");
                copied = t.get(i + 1).end();
                i++;
            }
        }
        return copied == 0 ? sql : out.append(sql.substring(copied)).toString();
    }

    /**
     * {@code sql} with each {@code CAST(x AS type ARRAY)} written as {@code pg_array_cast(x, 'type')}: Calcite casts no
     * string to an array, PostgreSQL reads its array text. An array of a type Tandem has no arrays of is refused.
     */
    static String arrayCasts(String sql) {
        if (!sql.toLowerCase(java.util.Locale.ROOT).contains("array")) {
            return sql;
        }
        String text = sql;
        while (true) {
            List<SqlLexer.Token> t = new SqlLexer(text).tokens();
            String next = null;
            for (int i = 0; i + 1 < t.size() && next == null; i++) {
                if (!t.get(i).is("cast") || !t.get(i + 1).isPunct("(")) {
                    continue;
                }
                int after = SqlLexer.afterClosing(t, i + 1);
                int close = after - 1;
                if (close < 3 || !t.get(close - 1).is("array")) {
                    continue;
                }
                int as = -1;
                int depth = 0;
                for (int j = close - 1; j > i + 1; j--) {
                    if (t.get(j).isPunct(")")) {
                        depth++;
                    } else if (t.get(j).isPunct("(")) {
                        depth--;
                    } else if (depth == 0 && t.get(j).is("as")) {
                        as = j;
                        break;
                    }
                }
                if (as < 0) {
                    continue;
                }
                String type = text.substring(t.get(as + 1).offset(), t.get(close - 2).end());
                String base = type.replaceAll("\\(.*\\)", "").strip();
                dev.tandem.row.DatumType element = SqlTypes.ofName(base);
                if (element == null || dev.tandem.row.DatumType.arrayOf(element) == null) {
                    throw SqlException.notSupported("arrays of " + type.toLowerCase(java.util.Locale.ROOT)
                            + " (Tandem has arrays of boolean, bigint, integer, double precision, numeric, text, date, timestamp, timestamptz and uuid)");
                }
                next = text.substring(0, t.get(i).offset()) + ArrayFunctions.CAST.toLowerCase(java.util.Locale.ROOT) + "("
                        + text.substring(t.get(i + 1).end(), t.get(as).offset()) + ", '" + base.toLowerCase(java.util.Locale.ROOT) + "')"
                        + text.substring(t.get(close).end());
            }
            if (next == null) {
                return text;
            }
            text = next;
        }
    }

    /** SQL's time keywords and the functions that read the statement's time as PostgreSQL's do. */
    private static final java.util.Map<String, String> SQL_TIMES = java.util.Map.of("current_timestamp",
            PgFunctions.PG_CURRENT_TIMESTAMP.toLowerCase(java.util.Locale.ROOT) + "()",
            "current_date", PgFunctions.PG_CURRENT_DATE.toLowerCase(java.util.Locale.ROOT) + "()",
            "localtimestamp", PgFunctions.PG_LOCALTIMESTAMP.toLowerCase(java.util.Locale.ROOT) + "()");

    private static final Set<String> INTERVAL_UNITS = Set.of("year", "month", "day", "hour", "minute", "second");

    private static String extracts(String sql) {
        String lower = sql.toLowerCase(java.util.Locale.ROOT);
        if (!lower.contains("extract") && !lower.contains("date_trunc") && !lower.contains("time") && !lower.contains("interval")
                && !lower.contains("current_") && !lower.contains("localtimestamp")) {
            return sql;
        }
        List<SqlLexer.Token> t = new SqlLexer(sql).tokens();
        StringBuilder out = new StringBuilder();
        int copied = 0;
        for (int i = 0; i + 1 < t.size(); i++) {
            if (i + 3 < t.size() && t.get(i).is("extract") && t.get(i + 1).isPunct("(") && t.get(i + 2).isName() && t.get(i + 3).is("from")) {
                out.append(sql, copied, t.get(i).offset()).append(PgFunctions.PG_EXTRACT.toLowerCase(java.util.Locale.ROOT)).append("('")
                        .append(t.get(i + 2).text().replace("'", "''")).append("',");
                copied = t.get(i + 3).end();
                i += 3;
            } else if (t.get(i).is("timestamptz") && t.get(i + 1).kind() == SqlLexer.Kind.STRING
                    && (i == 0 || !t.get(i - 1).is("as"))) {
                // the constant timestamptz '...' is the cast of its string
                out.append(sql, copied, t.get(i).offset()).append("CAST(").append(sql, t.get(i + 1).offset(), t.get(i + 1).end())
                        .append(" AS timestamptz)");
                copied = t.get(i + 1).end();
                i += 1;
            } else if (t.get(i).is("time") && t.get(i + 1).kind() == SqlLexer.Kind.STRING && (i == 0 || !t.get(i - 1).is("as"))) {
                // the constant time '...' is the cast of its string
                out.append(sql, copied, t.get(i).offset()).append("pg_time(").append(sql, t.get(i + 1).offset(), t.get(i + 1).end()).append(")");
                copied = t.get(i + 1).end();
                i += 1;
            } else if (t.get(i).is("interval") && t.get(i + 1).kind() == SqlLexer.Kind.STRING
                    && !(i + 2 < t.size() && t.get(i + 2).kind() == SqlLexer.Kind.WORD && INTERVAL_UNITS.contains(t.get(i + 2).text()))) {
                // PostgreSQL's interval '1 day' (SQL's INTERVAL '1' DAY, with its unit after the string, Calcite reads)
                out.append(sql, copied, t.get(i).offset()).append("pg_interval(").append(sql, t.get(i + 1).offset(), t.get(i + 1).end())
                        .append(")");
                copied = t.get(i + 1).end();
                i += 1;
            } else if ((t.get(i).is("localtime") || t.get(i).is("current_time")) && t.get(i).kind() == SqlLexer.Kind.WORD
                    && !(i > 0 && t.get(i - 1).isPunct("."))) {
                // SQL's localtime[(p)] and current_time[(p)]: the statement's time of day (current_time's type, timetz, is refused)
                String function = (t.get(i).is("localtime") ? PgFunctions.PG_LOCALTIME : PgFunctions.PG_CURRENT_TIME).toLowerCase(java.util.Locale.ROOT);
                out.append(sql, copied, t.get(i).offset()).append(function).append(t.get(i + 1).isPunct("(") ? "" : "()");
                copied = t.get(i).end();
            } else if (SQL_TIMES.containsKey(t.get(i).text()) && t.get(i).kind() == SqlLexer.Kind.WORD && !t.get(i + 1).isPunct("(")
                    && !(i > 0 && t.get(i - 1).isPunct("."))) {
                // SQL's current_timestamp, current_date and localtimestamp: PostgreSQL's types (Calcite's differ), the statement's time
                out.append(sql, copied, t.get(i).offset()).append(SQL_TIMES.get(t.get(i).text()));
                copied = t.get(i).end();
            } else if (t.get(i).is("date_trunc") && t.get(i + 1).isPunct("(")) {
                // Calcite's parser reads DATE_TRUNC as BigQuery's
                out.append(sql, copied, t.get(i).offset()).append("pg_date_trunc");
                copied = t.get(i).end();
            }
        }
        return copied == 0 ? sql : out.append(sql.substring(copied)).toString();
    }

    /** The index of the first token of the operand ending at token {@code k}. */
    static int operandStart(String sql, List<SqlLexer.Token> t, int k) {
        SqlLexer.Token last = t.get(k);
        int j;
        if (last.isPunct(")")) {
            j = match(t, k, "(", ")", -1);
            if (j > 0 && t.get(j - 1).isName() && !(t.get(j - 1).kind() == SqlLexer.Kind.WORD && KEYWORDS.contains(t.get(j - 1).text()))) {
                j--;
            }
        } else if (last.is("end")) {
            j = k;
            int depth = 0;
            for (; j >= 0; j--) {
                if (t.get(j).is("end")) {
                    depth++;
                } else if (t.get(j).is("case") && --depth == 0) {
                    break;
                }
            }
            if (j < 0) {
                throw error(sql, last);
            }
        } else if (last.isPunct("]")) {
            j = match(t, k, "[", "]", -1);
            if (j > 0 && t.get(j - 1).isName() && !(t.get(j - 1).kind() == SqlLexer.Kind.WORD && KEYWORDS.contains(t.get(j - 1).text()))) {
                j--;
            }
        } else if (last.kind() == SqlLexer.Kind.WORD && KEYWORDS.contains(last.text())) {
            throw error(sql, t.get(k + 1));
        } else if (last.isName() || last.kind() == SqlLexer.Kind.NUMBER || last.kind() == SqlLexer.Kind.STRING
                || last.kind() == SqlLexer.Kind.PARAM || last.isPunct("?")) {
            j = k;
        } else {
            throw error(sql, t.get(k + 1));
        }
        while (j >= 2 && t.get(j - 1).isPunct(".") && t.get(j - 2).isName()) {
            j -= 2;
        }
        return j;
    }

    /** The offset just past the type name starting at token {@code k}. */
    private static int typeEnd(String sql, List<SqlLexer.Token> t, int k) {
        SqlLexer.Token first = t.get(k);
        if (!first.isName() || first.kind() == SqlLexer.Kind.WORD && KEYWORDS.contains(first.text())) {
            throw error(sql, first);
        }
        int last = k;
        String name = first.text();
        if (name.equals("double") && t.get(last + 1).is("precision")
                || (name.equals("character") || name.equals("char")) && t.get(last + 1).is("varying")) {
            last++;
        } else if ((name.equals("timestamp") || name.equals("time")) && (t.get(last + 1).is("with") || t.get(last + 1).is("without"))
                && t.get(last + 2).is("time") && t.get(last + 3).is("zone")) {
            last += 3;
        }
        if (t.get(last + 1).isPunct("(")) {
            last = match(t, last + 1, ")", "(", 1);
        }
        while (t.get(last + 1).is("array")) {
            last++;
        }
        return t.get(last).end();
    }

    /** The index of the bracket matching the one at {@code k}, walking in {@code step}'s direction. */
    private static int match(List<SqlLexer.Token> t, int k, String open, String close, int step) {
        int depth = 0;
        for (int j = k; j >= 0 && j < t.size(); j += step) {
            if (t.get(j).isPunct(close)) {
                depth++;
            } else if (t.get(j).isPunct(open) && --depth == 0) {
                return j;
            }
        }
        throw new SqlException(SqlException.SYNTAX, "syntax error: unbalanced parentheses around \"::\"");
    }

    private static SqlException error(String sql, SqlLexer.Token at) {
        int[] lc = SqlLexer.lineColumn(sql, at.offset());
        String near = at.kind() == SqlLexer.Kind.END ? "end of input" : "or near \"" + (at.isPunct(":") ? "::" : sql.substring(at.offset(), at.end())) + "\"";
        return new SqlException(SqlException.SYNTAX, "syntax error at " + near, lc[0], lc[1]);
    }
}
